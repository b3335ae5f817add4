# Offline dominance sums of the priority kernel (csrc/irscore/_org_dominance.pyx):
# native functions cimported by _org_priority; it has no public members.
