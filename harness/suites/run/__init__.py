"""The run time: the session a pytest run holds, the case runner that drives the devices through a
case's steps, the rig of devices, the oracle of one round, lock-out timing, and resuming a run."""
