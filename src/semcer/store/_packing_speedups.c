/* The store's packing of a marked pair in C (optional: without this module, or with
 * SEMCER_PURE_PYTHON=1, semcer.store.packing._python_pack_pair runs, and the tests check that both
 * give the same bytes).
 *
 * pack_pair(marked_ref, marked_hyp) builds the value semcer.store.packing describes: a codec byte,
 * the two sides' UTF-8 lengths as LEB128 varints, then both sides' bytes, raw DEFLATE (zlib level
 * 6, a 32 KiB window, memory level 8, the default strategy: what zlib.compress(body, 6, -15) asks
 * for) when that is shorter than the bytes themselves, else the bytes as they are.
 *
 * What it saves is the set-up of a compressor for every edit: zlib.compress allocates and clears
 * about 256 KiB of deflate state per call, which costs more than compressing a window of a line.
 * Here one deflate state is made on the first call and reset (deflateReset) before each value;
 * a reset stream compresses exactly as a new one with the same parameters, so the bytes are
 * those of zlib.compress. The state is only touched with the GIL held.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <zlib.h>

#define CODEC_RAW 0
#define CODEC_DEFLATE 1
#define LEVEL 6
#define WBITS (-15)
#define MEM_LEVEL 8

static z_stream stream;
static int stream_ready = 0;
static unsigned char *body_buf = NULL; /* both sides' bytes, end to end (DEFLATE needs one input) */
static size_t body_cap = 0;

static int
ensure_stream(void)
{
    if (stream_ready)
        return 0;
    memset(&stream, 0, sizeof(stream));
    int rc = deflateInit2(&stream, LEVEL, Z_DEFLATED, WBITS, MEM_LEVEL, Z_DEFAULT_STRATEGY);
    if (rc != Z_OK) {
        if (rc == Z_MEM_ERROR)
            PyErr_NoMemory();
        else
            PyErr_Format(PyExc_RuntimeError, "zlib could not start a compressor (code %d)", rc);
        return -1;
    }
    stream_ready = 1;
    return 0;
}

static Py_ssize_t
put_varint(unsigned char *out, size_t n)
{
    Py_ssize_t k = 0;
    for (;;) {
        unsigned char low = (unsigned char)(n & 0x7F);
        n >>= 7;
        if (n) {
            out[k++] = low | 0x80;
        } else {
            out[k++] = low;
            return k;
        }
    }
}

/* Both sides' bytes end to end in body_buf; -1 with an exception set when memory runs out. */
static int
join_sides(const char *ref, size_t n_ref, const char *hyp, size_t n_hyp)
{
    size_t need = n_ref + n_hyp;
    if (need > body_cap) {
        size_t cap = need < 4096 ? 4096 : need;
        unsigned char *grown = PyMem_Realloc(body_buf, cap);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        body_buf = grown;
        body_cap = cap;
    }
    memcpy(body_buf, ref, n_ref);
    memcpy(body_buf + n_ref, hyp, n_hyp);
    return 0;
}

/* DEFLATE of body_buf[0:n] written at out (room for deflateBound bytes); its length, or -1. */
static Py_ssize_t
deflate_body(size_t n, unsigned char *out, size_t room)
{
    int rc = deflateReset(&stream);
    if (rc != Z_OK) {
        PyErr_Format(PyExc_RuntimeError, "zlib could not reset its compressor (code %d)", rc);
        return -1;
    }
    stream.next_in = body_buf;
    stream.avail_in = (uInt)n;
    stream.next_out = out;
    stream.avail_out = (uInt)room;
    rc = deflate(&stream, Z_FINISH);
    if (rc != Z_STREAM_END) {
        PyErr_Format(PyExc_RuntimeError, "zlib could not finish compressing a marked pair (code %d)", rc);
        return -1;
    }
    return (Py_ssize_t)stream.total_out;
}

static PyObject *
pack_pair(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "pack_pair(marked_ref, marked_hyp) takes two str");
        return NULL;
    }
    if (!PyUnicode_Check(args[0]) || !PyUnicode_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "pack_pair: both sides must be str");
        return NULL;
    }
    Py_ssize_t n_ref, n_hyp;
    const char *ref = PyUnicode_AsUTF8AndSize(args[0], &n_ref); /* UnicodeEncodeError on a lone surrogate */
    if (ref == NULL)
        return NULL;
    const char *hyp = PyUnicode_AsUTF8AndSize(args[1], &n_hyp);
    if (hyp == NULL)
        return NULL;
    size_t n = (size_t)n_ref + (size_t)n_hyp;
    if (n >= UINT_MAX) {
        PyErr_SetString(PyExc_OverflowError, "pack_pair: a marked pair of 4 GiB or more");
        return NULL;
    }
    unsigned char head[1 + 2 * 10];
    Py_ssize_t k = 1;
    k += put_varint(head + k, (size_t)n_ref);
    k += put_varint(head + k, (size_t)n_hyp);
    if (ensure_stream() < 0 || join_sides(ref, (size_t)n_ref, hyp, (size_t)n_hyp) < 0)
        return NULL;
    size_t room = deflateBound(&stream, (uLong)n);
    PyObject *out = PyBytes_FromStringAndSize(NULL, k + (Py_ssize_t)room);
    if (out == NULL)
        return NULL;
    unsigned char *o = (unsigned char *)PyBytes_AS_STRING(out);
    Py_ssize_t packed = deflate_body(n, o + k, room);
    if (packed < 0) {
        Py_DECREF(out);
        return NULL;
    }
    if ((size_t)packed < n) {
        head[0] = CODEC_DEFLATE;
        memcpy(o, head, (size_t)k);
        _PyBytes_Resize(&out, k + packed);
        return out;
    }
    Py_DECREF(out);
    out = PyBytes_FromStringAndSize(NULL, k + (Py_ssize_t)n);
    if (out == NULL)
        return NULL;
    o = (unsigned char *)PyBytes_AS_STRING(out);
    head[0] = CODEC_RAW;
    memcpy(o, head, (size_t)k);
    memcpy(o + k, body_buf, n);
    return out;
}

static PyMethodDef methods[] = {
    {"pack_pair", (PyCFunction)(void (*)(void))pack_pair, METH_FASTCALL,
     "pack_pair(marked_ref, marked_hyp): the stored value of a marked pair (semcer.store.packing)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_packing_speedups",
    "semcer.store.packing.pack_pair in C, with one reused compressor (optional; the same bytes).", -1, methods,
};

PyMODINIT_FUNC
PyInit__packing_speedups(void)
{
    return PyModule_Create(&module);
}
