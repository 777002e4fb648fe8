"""The run time: the session a pytest run holds, the case runner that drives the devices through a
case's steps, the context a step sees of that case (:mod:`.context`), the rig of devices, the oracle
of one round, lock-out timing, and resuming a run."""
