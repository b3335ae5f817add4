# The priority score of Reliability & Sensitivity (csrc/irscore/_org_priority.pyx):
# a native function cimported by _org_rs; it has no public members.
