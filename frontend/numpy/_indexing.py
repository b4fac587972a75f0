"""(in progress)"""
__all__ = []
def _getitem(x, idx): raise NotImplementedError
class _IndexUpdateHelper: pass
