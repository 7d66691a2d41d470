"""Backends written as small Python scripts, for the tests that stop them (``python -c SCRIPT READY DONE``)."""

#: A backend that notes *READY* once its signal handling is set; asked to stop (SIGINT), it takes a moment to clean
#: up, then says so in the file *DONE* and exits 1.
GRACEFUL = """import signal, sys, time
def cleanup(*_):
    time.sleep(0.2)
    open(sys.argv[2], "w").close()
    sys.exit(1)
signal.signal(signal.SIGINT, cleanup)
open(sys.argv[1], "w").close()
time.sleep(60)
"""
