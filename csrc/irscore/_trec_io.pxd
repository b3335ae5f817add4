# Declarations of _trec_io that other kernels cimport: the column buffers
# (``owned_array`` also for the dict encoder ``_dicts``) and the streaming parser
# ``TrecParser``, whose line checks and query interning the whole-file parser of
# ``_trec_io_split`` runs on its parts; the line and byte helpers of irs_lines.h
# and irs_common.h that the TREC readers use, declared once here.
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.string cimport memcpy

cdef extern from "irs_lines.h" nogil:
    ctypedef struct irs_nl_iter:
        pass
    int irs_same_bytes(const char *a, const char *b, int64_t n)
    uint64_t irs_hash_bytes_padded(const char *p, int64_t n, int64_t avail)
    void irs_nl_init(irs_nl_iter *it, const char *s, const char *end)
    const char *irs_nl_next(irs_nl_iter *it)
    int irs_first_token(const char *s, const char *eol, const char **tok, int64_t *len)
    void irs_release_pages(const char *lo, const char *hi)
    void irs_populate(void *p, int64_t n)
    void irs_copy_short(char *dst, const char *src, int64_t n, int64_t room, int64_t avail)

from irscore._irs_common cimport (
    IRS_PREFETCH, irs_bytes_cmp, irs_hash_bytes, irs_no_hugepages, irs_not_text, irs_parse_double, irs_parse_int32,
)

cdef struct Vec:
    char *data
    int64_t size      # bytes used
    int64_t cap       # bytes allocated


cdef int vec_grow(Vec *v, int64_t extra) noexcept nogil
cdef int vec_alloc(Vec *v, int64_t nbytes) except -1
cdef object owned_array(char **data, int64_t size, object dtype)
cdef object vec_to_array(Vec *v, object dtype)


cdef inline int vec_push(Vec *v, const void *src, int64_t n) noexcept nogil:
    if v.size + n > v.cap:
        if vec_grow(v, n) != 0:
            return -1
    memcpy(v.data + v.size, src, n)
    v.size += n
    return 0


cdef class TrecParser:
    # SplitParser's parts run one TrecParser each on their own threads, each
    # writing its parser's line state (lineno, rid) on every line: 128 bytes at
    # each end keep two parsers' fields off a shared cache line wherever the
    # allocator puts them (without them, the parse of 10M lines on two threads
    # took 0.28 s instead of 0.23 s whenever the two parsers were allocated
    # next to each other)
    cdef char _pad_head[128]
    cdef Vec docbuf, docoff, hashes, qidx, values
    cdef Vec qbuf, qoff
    cdef int64_t *qtab          # open-addressing table of query indices (-1 empty)
    cdef int64_t qtab_cap
    cdef int64_t nq
    cdef int64_t last_q
    cdef bint is_run
    cdef int64_t lineno
    cdef int64_t consumed
    cdef bytes carry
    cdef bytes run_id
    cdef str name
    cdef public int64_t line_base     # lines before this parser's input
    # error state of parse_lines (it runs without the GIL)
    cdef int err_code
    cdef int64_t err_line
    cdef int err_ntok
    cdef char err_tok[128]
    cdef int err_tok_len
    cdef const char *rid
    cdef int64_t rid_len
    cdef bint bom_checked
    cdef bint finished              # finish() handed the columns out: no call after it
    cdef unsigned long intr_since   # SplitParser parts: irs_intr_begin's value for the running pass
    cdef char _pad_tail[128]

    cdef int64_t intern_query(self, const char *p, int64_t n) noexcept nogil
    cdef int grow_table(self) noexcept nogil
    cdef void set_error(self, int code, int ntok, const char *tok, int64_t tlen) noexcept nogil
    cdef int line_error(self, int code, int ntok, const char *tok, int64_t tlen,
                        const char *line, const char *eol) noexcept nogil
    cdef int check_line(self, const char *line, const char *eol, const char *end,
                        const char **tok, int64_t *tlen, double *score, int32_t *grade) noexcept nogil
    cdef int parse_lines(self, const char *s, const char *end) noexcept nogil
    cdef int parse(self, const char *s, const char *end) except -1
