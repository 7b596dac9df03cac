from __future__ import annotations

from ham import report


def attempt(i, node, start, finish, kind="MAP", state="SUCCEEDED"):
    return {"id": f"attempt_1_0001_m_00000{i}_0", "type": kind, "node": node, "state": state,
            "start": start, "finish": finish}


def test_overlapping_attempts_get_separate_lanes_per_node():
    status = {"start_time": 1000, "finish_time": 9000, "attempts": [
        attempt(0, "n1", 1000, 5000), attempt(1, "n1", 2000, 3000), attempt(2, "n1", 5000, 6000),
        attempt(3, "n2", 1500, 2500), attempt(4, "n1", 3000, 4000, state="FAILED")]}
    bars = {b.attempt[-3]: b for b in report.bars(status)}
    assert (bars["0"].lane, bars["1"].lane, bars["4"].lane, bars["2"].lane) == (0, 1, 1, 0)
    assert bars["3"].node == "n2" and bars["3"].lane == 0
    assert bars["0"].start == 0.0 and bars["0"].end == 4.0


def test_running_attempt_ends_now_and_rows_print():
    status = {"start_time": 0, "finish_time": None,
              "attempts": [attempt(0, "n1", 0, None, state="RUNNING"), attempt(1, "n1", 0, 2000)]}
    assert report.bars(status)[0].end == 2.0
    rows = report.text_rows(status)
    assert len(rows) == 2 and "RUNNING" in rows[0]
