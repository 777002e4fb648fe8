"""The soak: many rounds through the rig, every invariant checked every round (``tablecert soak``).

* :mod:`harness.soak.run`: the soak of the emulators, rounds dealt from a freshly shuffled shoe;
* :mod:`harness.soak.observe`: the soak of a bench, rounds dealt at the table and read;
* :mod:`harness.soak.result`: the result and its summary;
* :mod:`harness.soak.rig`: the rig's transcripts bounded, and the meters read;
* :mod:`harness.soak.stats`: the hit-frequency laws and tests, and the memory track.
"""
