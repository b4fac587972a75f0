"""The device side: ``Array`` (a device buffer, eager execution), the operators
shared by arrays and tracers, the public device functions (``queries``: devices,
device_get, ...), and the one seam to an execution backend."""
