# Cython's shared utility code (the memoryview type and its helpers), one copy
# for every compiled kernel of irscore; it has no public members.
