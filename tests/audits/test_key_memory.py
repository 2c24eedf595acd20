"""The audit's default key memory follows the container's memory limit (a 16 GiB pod on a large
host must not plan for a quarter of the host's RAM)."""

from __future__ import annotations

from pathlib import Path

from audits import runner
from audits.runner import cgroup_memory_limit


def _tree(tmp: Path, files: dict[str, str], cgroup: str) -> tuple[str, str]:
    root = tmp / "cgroup"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text + "\n")
    proc = tmp / "proc_self_cgroup"
    proc.write_text(cgroup)
    return str(proc), str(root)


def test_cgroup_v2_limit_of_a_pod(tmp_path):
    proc, root = _tree(tmp_path, {"memory.max": str(16 << 30)}, "0::/\n")
    assert cgroup_memory_limit(proc, root) == 16 << 30


def test_cgroup_v2_nested_and_unlimited(tmp_path):
    proc, root = _tree(tmp_path, {"memory.max": "max", "kubepods/pod1/memory.max": str(8 << 30)},
                       "0::/kubepods/pod1\n")
    assert cgroup_memory_limit(proc, root) == 8 << 30
    proc, root = _tree(tmp_path / "b", {"memory.max": "max"}, "0::/\n")
    assert cgroup_memory_limit(proc, root) is None


def test_cgroup_v1_limit_and_no_limit(tmp_path):
    proc, root = _tree(tmp_path, {"memory/memory.limit_in_bytes": "9223372036854771712",
                                  "memory/docker/abc/memory.limit_in_bytes": str(4 << 30)},
                       "4:memory:/docker/abc\n1:cpu:/\n")
    assert cgroup_memory_limit(proc, root) == 4 << 30
    proc, root = _tree(tmp_path / "b", {"memory/memory.limit_in_bytes": "9223372036854771712"},
                       "4:memory:/\n")
    assert cgroup_memory_limit(proc, root) is None


def test_no_cgroup_files(tmp_path):
    assert cgroup_memory_limit(str(tmp_path / "none"), str(tmp_path / "none")) is None


def test_default_key_memory_is_a_quarter_of_the_lower(monkeypatch):
    monkeypatch.setattr(runner, "cgroup_memory_limit", lambda: 16 << 30)
    ram = runner.os.sysconf("SC_PAGE_SIZE") * runner.os.sysconf("SC_PHYS_PAGES")
    assert runner.default_key_memory() == min(ram, 16 << 30) // 4
    monkeypatch.setattr(runner, "cgroup_memory_limit", lambda: 1 << 30)
    assert runner.default_key_memory() == 256 << 20  # the pod's limit, not the host's RAM
    monkeypatch.setattr(runner, "cgroup_memory_limit", lambda: None)
    assert runner.default_key_memory() == ram // 4
