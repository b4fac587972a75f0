"""The device side: ``Array`` (a device buffer, eager execution), the operators
shared by arrays and tracers, and the one seam to an execution backend."""
