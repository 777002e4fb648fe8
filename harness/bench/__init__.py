"""The bench: who carries out each physical act of a case, and how the harness observes it.

A suite step never touches a port to make something happen at the table.  It asks for an
**act** (:mod:`harness.bench.acts`: stack the shoe, deal, put chips on a sensor, press the lock-out
button, turn the reset key, cut the power, pull a cable, ...); the profile's ``bench:`` section
says which **performer** (:mod:`harness.bench.performers`) carries that act out on this bench:

* ``test-channel``: tablecert sends the device the command for the act (the emulators' test
  channel; a real device refuses it);
* ``actuator``: a VISA switch unit closes and opens a relay channel wired to the button, key or
  cable (SCPI ``ROUT:CLOS``/``ROUT:OPEN``, by explicit resource name);
* ``supply``: the bench power supply (the power act only);
* ``operator``: a person, asked through a prompt (:mod:`harness.bench.prompts`) on the terminal
  or the local bench console (:mod:`harness.bench.console`);
* ``none``: nobody on this bench can; a case that needs the act is NOT APPLICABLE, with that reason.

Expectations only observe: what the devices report (card events, the sensors' wager events,
the controller's events and meters) is what is judged.
"""
