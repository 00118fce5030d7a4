"""A PyTorch DistributedDataParallel trainer for hptune (see README.md)."""
