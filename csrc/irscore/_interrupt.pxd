# Ctrl-C in long native loops (csrc/include/irs_interrupt.h, described in
# CONTRIBUTING's native code section): declared once here and cimported by the
# kernels (``from irscore._interrupt cimport ...``); no module of its own.
#
# irs_intr_begin() -> a token; irs_intr_pending(token) polled in the loop (nogil);
# irs_intr_end() when the loop ends; irs_intr_raise() (with the GIL) turns a
# pending SIGINT into KeyboardInterrupt.
cdef extern from "irs_interrupt.h" nogil:
    unsigned long irs_intr_begin()
    void irs_intr_end()
    int irs_intr_pending(unsigned long since)

cdef extern from "irs_interrupt.h":
    int irs_intr_raise() except -1
