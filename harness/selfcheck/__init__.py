"""Self-checks: proofs about the harness itself, each run against real certification runs.

* :mod:`harness.selfcheck.killmatrix`: every emulator defect fails a case citing the clause it
  breaks (``tablecert defects --matrix``);
* :mod:`harness.selfcheck.variants` and :mod:`harness.selfcheck.link_variants`: compliant Rules
  Submissions other than ours, each of which must PASS (``tablecert variants``);
* :mod:`harness.selfcheck.faultmatrix`: what the host does to a run never turns into a PASS or a
  broken record (``python -m harness.selfcheck.faultmatrix``);
* :mod:`harness.selfcheck.mutation`: the mutation score of the suites against the emulators'
  device code (``tablecert defects --mutants``);
* :mod:`harness.selfcheck.jobs`: the one runner these share for a certification run in its own
  process group, ended with its emulators when past its deadline.
"""
