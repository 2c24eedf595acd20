"""``cluster.fanout``: results in call order, the window, retries, errors in one line naming the
call, errors passed through, the tasks still in flight cancelled; in process the same results."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from cluster.fanout import CodeMismatch, TaskFailed, fan_out
from cluster.ray_runtime import RaySession, ray_session


class Unusable(ValueError):
    """An error the caller handles itself (passed through)."""


def slow_square(i: int, delay: float, markers: str) -> int:
    """i * i after ``delay`` seconds; a marker file once done."""
    time.sleep(delay)
    Path(markers, f"done-{i}").write_text(str(os.getpid()))
    return i * i


def flaky(i: int, markers: str) -> int:
    """Raises the first time it runs for ``i`` (a marker remembers), then returns i."""
    flag = Path(markers, f"ran-{i}")
    if not flag.exists():
        flag.write_text("1")
        raise OSError(f"transient failure of {i}\nsecond line")
    return i


def unusable(i: int) -> int:
    if i == 2:
        raise Unusable(f"file {i}: not a batch file")
    return i


@pytest.fixture(scope="module")
def session(ray_local: None) -> RaySession:
    with ray_session() as s:  # the session Ray: used, left running
        return s


@pytest.mark.parametrize("where", ["ray", "in-process"])
def test_results_in_call_order_and_on_done_as_they_end(where: str, session: RaySession,
                                                       tmp_path: Path) -> None:
    # the first call is slow (3 s): on 2 CPUs the others run beside it and end before it (two
    # slow calls could hold both CPUs and end first: the test must not depend on the load)
    calls = [(i, 3.0 if i == 0 else 0.0, str(tmp_path)) for i in range(6)]
    ended: list[int] = []
    out = list(fan_out(slow_square, calls, session=session if where == "ray" else None,
                       window=4, on_done=lambda i, r: ended.append(i)))
    assert out == [i * i for i in range(6)]
    assert sorted(ended) == list(range(6))
    if where == "ray":
        assert ended[0] != 0  # a later call ended first, the results kept their order
    else:
        assert ended == list(range(6))


def test_a_window_of_one_runs_one_task_at_a_time(session: RaySession, tmp_path: Path) -> None:
    calls = [(i, 0.5 if i == 0 else 0.0, str(tmp_path)) for i in range(4)]
    ended: list[int] = []
    assert list(fan_out(slow_square, calls, session=session, window=1,
                        on_done=lambda i, r: ended.append(i))) == [0, 1, 4, 9]
    assert ended == [0, 1, 2, 3]  # the slow first task held the others back


def test_a_task_that_raised_is_retried(session: RaySession, tmp_path: Path) -> None:
    assert list(fan_out(flaky, [(i, str(tmp_path)) for i in range(3)], session=session)) == [
        0, 1, 2]


def test_a_task_failing_past_its_retries_is_one_line_naming_the_call(
        session: RaySession, tmp_path: Path) -> None:
    with pytest.raises(TaskFailed) as e:
        list(fan_out(flaky, [(7, str(tmp_path))], session=session, retries=0,
                     name=lambda call: f"batch {call[0]}"))
    assert str(e.value) == "batch 7 failed after 0 retries: OSError: second line"
    (tmp_path / "ran-7").unlink()
    with pytest.raises(TaskFailed, match=r"^task 7 failed: OSError: second line$"):
        list(fan_out(flaky, [(7, str(tmp_path))], session=session, retry_errors=False))


@pytest.mark.parametrize("where", ["ray", "in-process"])
def test_passthrough_errors_arrive_as_raised(where: str, session: RaySession) -> None:
    with pytest.raises(Unusable, match=r"^file 2: not a batch file$"):
        list(fan_out(unusable, [(i,) for i in range(4)], passthrough=(Unusable,),
                     session=session if where == "ray" else None))


def _wait_gone(markers: Path, delay: float) -> list[str]:
    time.sleep(delay + 1.0)  # long enough for a task left running to end
    return sorted(p.name for p in markers.glob("done-*"))


def test_an_error_cancels_the_tasks_in_flight(session: RaySession, tmp_path: Path) -> None:
    def stop(i: int, _: int) -> None:
        raise KeyboardInterrupt  # Ctrl-C in the driver while tasks run

    calls = [(0, 0.0, str(tmp_path))] + [(i, 2.0, str(tmp_path)) for i in range(1, 4)]
    with pytest.raises(KeyboardInterrupt):
        list(fan_out(slow_square, calls, session=session, window=4, on_done=stop))
    assert _wait_gone(tmp_path, 2.0) == ["done-0"]


def test_closing_the_iterator_cancels_the_rest(session: RaySession, tmp_path: Path) -> None:
    calls = [(0, 0.0, str(tmp_path))] + [(i, 2.0, str(tmp_path)) for i in range(1, 4)]
    it = fan_out(slow_square, calls, session=session, window=4)
    assert next(it) == 0
    it.close()
    assert _wait_gone(tmp_path, 2.0) == ["done-0"]


def test_notes_say_what_is_queued(session: RaySession, tmp_path: Path) -> None:
    notes: list[str] = []
    list(fan_out(slow_square, [(i, 0.0, str(tmp_path)) for i in range(3)], session=session,
                 window=8, label="batch", say=notes.append))
    # the session Ray is "existing" (not started by the fan-out's caller): it may autoscale
    assert notes == ["holdem: 3 batch tasks, up to 3 queued on Ray at once; 2 CPUs present"
                     + ("" if session.where == "local" else
                        " (an autoscaler adds nodes for the queue)")]


def test_every_task_checks_its_workers_compiled_code(session: RaySession,
                                                      tmp_path: Path) -> None:
    list(fan_out(slow_square, [(i, 0.0, str(tmp_path)) for i in range(4)], session=session))
    from audits import jitcache

    assert session.worker_code["driver"] == jitcache.identity_digest()
    assert session.worker_code["tasks"] >= 4 and session.worker_code["workers"] >= 1


def test_a_worker_running_other_code_fails_the_run_in_one_line(
        session: RaySession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the driver's sources differ from the workers' (here: the driver's digest is changed in this
    # process only; the workers compute theirs from the files they imported)
    from audits import jitcache

    monkeypatch.setattr(jitcache, "identity_digest", lambda: "0" * jitcache.KEY_HEX)
    with pytest.raises(CodeMismatch) as e:
        list(fan_out(slow_square, [(i, 0.0, str(tmp_path)) for i in range(2)], session=session,
                     retries=0))
    msg = str(e.value)
    assert "\n" not in msg and "runs other code than the driver" in msg
    assert f"the driver's {'0' * jitcache.KEY_HEX}" in msg
    assert not list(tmp_path.glob("done-*"))  # nothing ran on the wrong code
    assert isinstance(e.value, TaskFailed)  # the CLIs' one line, exit 1
