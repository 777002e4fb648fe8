"""The device layer: framing, transports, transcripts, role interfaces, drivers and their registry.

Nothing above this package knows about ports: suites talk to the role interfaces in
``harness.devices.roles``; profiles pick a driver by registry name (``harness.devices.registry``).
"""
