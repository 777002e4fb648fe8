"""Built-in drivers: the reference protocol (shoe, sensors, controller) and SCPI instruments."""
