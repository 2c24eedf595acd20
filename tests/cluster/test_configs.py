"""The cluster configs (cluster/configs/*.yaml, cluster/Dockerfile) are valid and pinned.

- Launcher configs (aws.yaml, onprem.yaml): Ray's own ``prepare_config`` (merges the provider's
  defaults.yaml, validates the docker section, fills node types) and ``validate_config`` (Ray's
  JSON schema ray-schema.json plus its cross-field checks), then what this project relies on.
  AWS: Ray's own ``bootstrap_aws`` (what ``ray up`` does before starting a node) runs against
  moto's mocked AWS. Not run here: starting instances, and the local provider's SSH to the
  listed machines.
- KubeRay manifests (raycluster.yaml, rayjob.yaml): no KubeRay CRD schema is available offline
  (``kubectl apply --dry-run=server`` needs a cluster with the operator), so the required fields
  are checked by hand; the RayJob's entrypoint is parsed by the ``holdem`` command's own parser.
- Dockerfile: never built here (no Docker); the lines that pin and install are checked.
- runtime_env.yaml: read as ``ray job submit --runtime-env`` reads it and validated by
  ``ray.runtime_env.RuntimeEnv``; it ships the code and installs nothing (the nodes' own
  environment runs the job). ``tests/cluster/test_job_submit.py`` submits a real job with it.
"""

from __future__ import annotations

import copy
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "cluster" / "configs"
LAUNCHER = ("aws.yaml", "onprem.yaml")
KUBERAY = ("raycluster.yaml", "rayjob.yaml", "rayjob-smoke.yaml")
PEAK_RSS_GB_PER_TASK = 0.66  # measured: 100,000-hand batch, simulate + Parquet (README)


def _pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _pins() -> dict[str, str]:
    """name -> version of pyproject's dependencies (all pinned with ==)."""
    pins = {}
    for dep in _pyproject()["project"]["dependencies"]:
        name, sep, version = dep.partition("==")
        assert sep, f"pyproject dependency {dep!r} is not pinned with =="
        pins[name.strip().lower()] = version.strip()
    return pins


RAY_VERSION = _pins()["ray"]
PY_TAG = "py311"


def _load(name: str) -> dict[str, Any]:
    data = yaml.safe_load((CONFIGS / name).read_text())
    assert isinstance(data, dict) and data, f"{name}: not a YAML mapping"
    return data


def test_ray_pin_is_what_the_configs_assume():
    import ray

    assert RAY_VERSION == "2.60.0"
    assert ray.__version__ == RAY_VERSION


def test_every_config_parses():
    names = sorted(p.name for p in CONFIGS.glob("*.yaml"))
    assert set(names) >= {*LAUNCHER, *KUBERAY, "runtime_env.yaml"}
    for name in names:
        _load(name)


# ---------------------------------------------------------------- cluster launcher


@pytest.mark.parametrize("name", LAUNCHER)
def test_launcher_config_passes_rays_validation(name):
    from ray.autoscaler._private.util import prepare_config, validate_config

    raw = _load(name)
    prepared = prepare_config(copy.deepcopy(raw))
    validate_config(prepared)  # jsonschema against ray-schema.json + Ray's cross-field checks
    head = prepared["head_node_type"]
    assert head in prepared["available_node_types"]
    workers = [t for t in prepared["available_node_types"] if t != head]
    assert workers or prepared["provider"]["type"] == "local"


@pytest.mark.parametrize("name", LAUNCHER)
def test_launcher_config_pins_ray_installs_project_and_uses_token_auth(name):
    c = _load(name)
    assert c["docker"]["image"] == f"rayproject/ray:{RAY_VERSION}-{PY_TAG}"
    # the project reaches every node and is installed there
    mounts = c["file_mounts"]
    project = [remote for remote, local in mounts.items() if local == "."]
    assert project, "file_mounts must sync the repository to the nodes"
    assert any("pip install" in cmd and project[0] in cmd for cmd in c["setup_commands"])
    assert any(f"'{RAY_VERSION}'" in cmd for cmd in c["setup_commands"])
    # the synced code names its commit (no .git on the nodes): checked right after the install
    cmds = c["setup_commands"]
    install = next(i for i, cmd in enumerate(cmds) if "pip install" in cmd)
    assert "python -m audits.provenance --check" in cmds[install + 1:]
    assert ".git" in c["rsync_exclude"] and not c["rsync_filter"]  # build_info.json is synced
    assert ".venv" in c["rsync_exclude"]
    # one token for every node: the token file is synced and Ray starts in token mode
    assert any(local == "~/.ray/auth_token" and remote.endswith("/.ray/auth_token")
               for remote, local in mounts.items())
    for key in ("head_start_ray_commands", "worker_start_ray_commands"):
        start = " ".join(c[key])
        assert "RAY_AUTH_MODE=token" in start, key
        assert "--object-store-memory=" in start, key


def test_aws_head_runs_no_tasks_and_workers_fit_their_tasks():
    c = _load("aws.yaml")
    types = c["available_node_types"]
    assert types[c["head_node_type"]]["resources"] == {"CPU": 0}
    assert c["provider"]["type"] == "aws"
    # c7i.8xlarge: 32 vCPUs, 64 GiB (stated in the README's plan)
    worker = next(t for n, t in types.items() if n != c["head_node_type"])
    assert worker["node_config"]["InstanceType"] == "c7i.8xlarge"
    # every node writes to S3 (workers: the batch files), so every node type has a profile;
    # Ray's default would give one to the head only
    assert types[c["head_node_type"]]["node_config"]["IamInstanceProfile"] == {
        "Name": "holdem-ray-head"}
    assert worker["node_config"]["IamInstanceProfile"] == {"Name": "holdem-ray-worker"}
    object_store = int(re.search(r"--object-store-memory=(\d+)",
                                 " ".join(c["worker_start_ray_commands"])).group(1))
    assert 32 * PEAK_RSS_GB_PER_TASK * 1e9 + object_store < 64 * 2**30


def test_onprem_is_a_manual_local_cluster():
    c = _load("onprem.yaml")
    p = c["provider"]
    assert p["type"] == "local" and p["head_ip"] and p["worker_ips"]
    assert "available_node_types" not in c  # the local provider makes its own node type
    assert c["max_workers"] == len(p["worker_ips"])


def test_aws_bootstrap_against_a_mocked_aws(monkeypatch, tmp_path):
    """``ray up``'s AWS bootstrap (Ray's own ``bootstrap_aws``: IAM role and instance profile,
    AMI per region, subnets per listed zone, security group, key pair check) run on aws.yaml
    against moto's in-process AWS: what ``ray up`` would create or look up before a node
    starts."""
    moto = pytest.importorskip("moto", reason="moto (a dev dependency) mocks AWS")
    from ray.autoscaler._private.aws import config as aws_config
    from ray.autoscaler._private.util import prepare_config, validate_config

    for k, v in {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                 "AWS_DEFAULT_REGION": "us-east-1", "MOTO_IAM_LOAD_MANAGED_POLICIES": "true"
                 }.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.setattr(aws_config.time, "sleep", lambda s: None)  # IAM propagation waits
    key = tmp_path / "key.pem"
    key.write_text("not a real key")
    c = _load("aws.yaml")
    c["auth"]["ssh_private_key"] = str(key)  # else Ray writes a new key pair under ~/.ssh
    with moto.mock_aws():
        import boto3

        iam = boto3.client("iam")
        for name in ("holdem-ray-head", "holdem-ray-worker"):  # what the README creates
            iam.create_instance_profile(InstanceProfileName=name)
        boto3.client("ec2", region_name="us-east-1").create_key_pair(KeyName="holdem-test")
        for t in c["available_node_types"].values():
            t["node_config"]["KeyName"] = "holdem-test"
        c = prepare_config(c)
        validate_config(c)
        out = aws_config.bootstrap_aws(c)
        ec2 = boto3.client("ec2", region_name="us-east-1")
        zones = {s["SubnetId"]: s["AvailabilityZone"] for s in ec2.describe_subnets()["Subnets"]}
        groups = {g["GroupId"]: g["GroupName"] for g in
                  ec2.describe_security_groups()["SecurityGroups"]}
        profiles = [p["InstanceProfileName"] for p in
                    boto3.client("iam").list_instance_profiles()["InstanceProfiles"]]
    # the configured profiles are used as they are: Ray creates no default one for the head
    assert "ray-autoscaler-v1" not in profiles
    assert {"holdem-ray-head", "holdem-ray-worker"} <= set(profiles)
    wanted = set(c["provider"]["availability_zone"].split(","))
    for name, t in out["available_node_types"].items():
        nc = t["node_config"]
        assert nc["ImageId"].startswith("ami-"), name
        assert {zones[s] for s in nc["SubnetIds"]} == wanted, name
        assert [groups[g] for g in nc["SecurityGroupIds"]] == ["ray-autoscaler-holdem"], name


# ---------------------------------------------------------------- KubeRay


def _quantity(q: str | int) -> float:
    """Kubernetes quantity -> number (bytes for memory, cores for cpu)."""
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40,
             "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "m": 1e-3}
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([A-Za-z]*)", str(q))
    assert m, f"bad quantity {q!r}"
    return float(m.group(1)) * units.get(m.group(2), 1) if m.group(2) else float(m.group(1))


def _image_tag_ok(image: str) -> None:
    version = _pyproject()["project"]["version"]
    assert image.endswith(f"/holdem:{version}-ray{RAY_VERSION}-{PY_TAG}"), image


def _check_group(group: dict[str, Any], where: str) -> list[dict[str, Any]]:
    params = group["rayStartParams"]
    assert all(isinstance(v, str) for v in params.values()), f"{where}: rayStartParams strings"
    containers = group["template"]["spec"]["containers"]
    assert containers, where
    for c in containers:
        _image_tag_ok(c["image"])
        req, lim = c["resources"]["requests"], c["resources"]["limits"]
        assert req == lim, f"{where}: requests should equal limits (Ray sizes itself from them)"
    return containers


def _check_cluster_spec(spec: dict[str, Any], where: str) -> None:
    assert spec["rayVersion"] == RAY_VERSION and isinstance(spec["rayVersion"], str)
    assert spec["authOptions"]["mode"] == "token"
    head = spec["headGroupSpec"]
    _check_group(head, f"{where} head")
    assert head["rayStartParams"]["num-cpus"] == "0"
    assert spec["workerGroupSpecs"], where
    for g in spec["workerGroupSpecs"]:
        name = f"{where} worker group {g.get('groupName')}"
        assert g["groupName"]
        for k in ("replicas", "minReplicas", "maxReplicas"):
            assert isinstance(g[k], int) and g[k] >= 0, f"{name}: {k}"
        assert g["minReplicas"] <= g["replicas"] <= g["maxReplicas"], name
        (c,) = _check_group(g, name)
        cpus = _quantity(c["resources"]["limits"]["cpu"])
        memory = _quantity(c["resources"]["limits"]["memory"])
        object_store = int(g["rayStartParams"]["object-store-memory"])
        # every CPU runs one batch task; leave 1 GiB for the raylet and friends
        assert cpus * PEAK_RSS_GB_PER_TASK * 1e9 + object_store + 2**30 <= memory, name


def test_raycluster_manifest():
    m = _load("raycluster.yaml")
    assert m["apiVersion"] == "ray.io/v1" and m["kind"] == "RayCluster"
    assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", m["metadata"]["name"])
    _check_cluster_spec(m["spec"], "raycluster.yaml")


@pytest.mark.parametrize(("name", "least", "most"), [
    ("rayjob.yaml", 1_000_000_000, 1_100_000_000),  # the billion of the README's plan
    ("rayjob-smoke.yaml", 1_000_000, 10_000_000),  # a few million, before the big one
])
def test_rayjob_certifies_on_shared_storage(name, least, most):
    from ray.runtime_env import RuntimeEnv

    from cluster.cli import build_parser

    m = _load(name)
    assert m["apiVersion"] == "ray.io/v1" and m["kind"] == "RayJob"
    assert m["metadata"]["name"]
    spec = m["spec"]
    _check_cluster_spec(spec["rayClusterSpec"], name)
    assert spec["shutdownAfterJobFinishes"] is True
    argv = shlex.split(spec["entrypoint"])
    # certify: simulate + audit + report, the certificate written into the run folder
    assert argv[:2] == ["holdem", "certify"]
    args = build_parser().parse_args(argv[1:])  # the options are real options of the command
    assert args.out.startswith("s3://"), "workers write their files: output must be shared"
    structures = 3 if args.structure == "all" else len(args.structure.split(","))
    assert least <= args.hands * structures <= most
    # no --workers: the default queue (cluster.ray_runtime.CLUSTER_WINDOW) must not depend on
    # the pods up when the job starts
    assert args.workers is None
    RuntimeEnv(**yaml.safe_load(spec["runtimeEnvYAML"]))


def test_the_smoke_job_is_the_big_job_smaller():
    big, smoke = _load("rayjob.yaml")["spec"], _load("rayjob-smoke.yaml")["spec"]
    for key in ("runtimeEnvYAML", "submissionMode"):
        assert big[key] == smoke[key], key
    b, s = big["rayClusterSpec"], smoke["rayClusterSpec"]
    assert b["headGroupSpec"] == s["headGroupSpec"]
    for gb, gs in zip(b["workerGroupSpecs"], s["workerGroupSpecs"], strict=True):
        assert gb["template"] == gs["template"]  # same image, service account, pod size
    from cluster.cli import build_parser

    a, c = (vars(build_parser().parse_args(shlex.split(s["entrypoint"])[1:]))
            for s in (big, smoke))
    assert a["out"] != c["out"] and a["hands"] > c["hands"]
    assert {k: v for k, v in a.items() if k not in ("hands", "out")} == {
        k: v for k, v in c.items() if k not in ("hands", "out")}


# ---------------------------------------------------------------- Dockerfile


def test_dockerfile_pins_ray_and_installs_the_project():
    text = (ROOT / "cluster" / "Dockerfile").read_text()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    assert lines[0] == "FROM python:3.11-slim"
    assert f"ARG RAY_VERSION={RAY_VERSION}" in lines
    assert "COPY pyproject.toml README.md ./" in lines
    for package in _pyproject()["tool"]["setuptools"]["packages"]["find"]["include"]:
        name = package.rstrip("*")
        assert f"COPY {name} ./{name}" in lines, f"the image must contain {name}/"
    install = next(ln for ln in lines if "pip install" in ln)
    assert '"ray[default]==${RAY_VERSION}" .' in install  # the project (pins ray) + Ray's extra
    assert "ray.__version__ != '${RAY_VERSION}'" in text  # the build fails on another Ray
    assert "latest" not in text
    # the image names its commit: the stamp (audits/build_info.json) is checked at build time
    assert "python -m audits.provenance --check" in text
    assert re.search(r"^USER ray$", text, re.M)


# ---------------------------------------------------------------- runtime env


def test_runtime_env_ships_the_code_and_uses_the_nodes_environment(monkeypatch):
    from ray.dashboard.modules.dashboard_sdk import parse_runtime_env_args
    from ray.runtime_env import RuntimeEnv

    monkeypatch.chdir(ROOT)  # `ray job submit` runs from the repository root
    env = parse_runtime_env_args(runtime_env=str(CONFIGS / "runtime_env.yaml"))
    RuntimeEnv(**env)  # Ray's own validation of every field
    # the code: every package of the project, each a real package directory
    include = {p.rstrip("*") for p in _pyproject()["tool"]["setuptools"]["packages"]["find"]
               ["include"]}
    assert set(env["py_modules"]) == include
    for name in env["py_modules"]:
        assert (ROOT / name / "__init__.py").is_file(), name
    # no per-job virtualenv: the nodes' installed environment (image / setup_commands) runs the
    # job (a pip or uv field made Ray 2.60 fail in its own serialization setup, and costs
    # every node minutes of installs: see the file's comments)
    assert not {"pip", "uv", "conda", "container", "image_uri"} & set(env)
    assert env["env_vars"]["NUMBA_NUM_THREADS"] == "1"


def test_workers_load_the_compiled_cache_the_image_and_the_setup_commands_warm():
    """One cache path for every node: the image's HOLDEM_JIT_CACHE (compiled by `holdem warmup`
    at build, as user ray), the runtime env's (``~`` of user ray, expanded by audits.jitcache),
    and the launcher configs' setup_commands, which run `holdem warmup` as that user."""
    env = yaml.safe_load((CONFIGS / "runtime_env.yaml").read_text())["env_vars"]
    assert "NUMBA_CACHE_DIR" not in env  # it would take the place of the warm cache
    home = "/home/ray"
    path = env["HOLDEM_JIT_CACHE"].replace("~", home, 1)
    text = (ROOT / "cluster" / "Dockerfile").read_text()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    assert f"HOLDEM_JIT_CACHE={path}" in text
    assert lines.index("USER ray") < lines.index("RUN holdem warmup")  # ray's home, ray's files
    for name in ("aws.yaml", "onprem.yaml"):
        assert "holdem warmup" in _load(name)["setup_commands"], name
    # and the KubeRay jobs leave the image's variable alone
    for name in KUBERAY:
        assert "JIT_CACHE" not in (CONFIGS / name).read_text()
        assert "NUMBA_CACHE_DIR" not in (CONFIGS / name).read_text()


def test_readme_names_existing_configs():
    text = (ROOT / "cluster" / "README.md").read_text()
    named = set(re.findall(r"cluster/configs/[\w.-]+\.yaml", text))
    assert named >= {f"cluster/configs/{n}" for n in (*LAUNCHER, *KUBERAY, "runtime_env.yaml")}
    for rel in named:
        assert (ROOT / rel).is_file(), rel
