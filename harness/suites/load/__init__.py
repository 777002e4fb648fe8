"""Loading suites: the typed model, the schema that checks a suite file, the ``given:`` roles bound
to a profile, amount references, named shoe stacks, and whether a case applies to a profile.  Nothing
here imports the run time (:mod:`harness.suites.run`)."""
