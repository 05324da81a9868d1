"""Budget.alarm: the backstop that stops code which checks its budget too rarely."""

import signal
import time

import pytest

from symrel.budget import Budget, BudgetExceeded


@pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="POSIX only")
def test_alarm_stops_a_loop_that_never_checks():
    budget = Budget(timeout=0.05)
    budget.at(lemma="a loop without checks")
    start = time.process_time()
    with pytest.raises(BudgetExceeded, match="time limit of 0.05 s reached; open: a loop without checks"):
        with budget.alarm(0.05):
            while time.process_time() - start < 30:  # 30 s of CPU, unless the alarm stops it
                pass
    # the alarm comes 0.1 s of wall time after the start: the loop cannot have had more CPU time
    # than that, however loaded the machine (a loop the alarm missed runs 30 s)
    assert time.process_time() - start < 5
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_alarm_without_a_deadline_does_nothing():
    with Budget().alarm():
        pass
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0) if hasattr(signal, "SIGALRM") else True
