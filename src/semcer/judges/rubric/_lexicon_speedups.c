/* Two hot loops of the rubric judge's lexicon module in C, each optional (without this module, or
 * with SEMCER_PURE_PYTHON=1, the Python versions run, and the tests check that both answer alike):
 *
 * get():    one lexicon-table lookup, semcer.judges.rubric.lexicon_store.FileTable.get, read for read.
 * layout(): a line's unit kinds, word runs, number runs and offsets, lexicon.line_info's loops.
 *
 * get():
 * It does what FileTable._python_get does, with the same read of the same file (the format is
 * described in lexicon_store.py): the key is the word's UTF-8 bytes (surrogatepass), its slot
 * crc32(key) & mask (the crc32 of zlib, computed here from its polynomial), the slot's bounds from
 * the slot index the table keeps, then one read of the slot's records, scanned for the key.
 * tests/judges/rubric/test_lexicon_store.py checks that both answer alike.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static uint32_t crc_table[256];

static void
init_crc_table(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
}

static uint32_t
crc32_of(const unsigned char *p, Py_ssize_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (Py_ssize_t i = 0; i < n; i++)
        c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

static uint32_t
le32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Read exactly n bytes at offset `at`; 0 on success, -1 with an exception set. */
static int
read_at(int fd, void *buf, size_t n, long long at)
{
    size_t done = 0;
    while (done < n) {
        ssize_t got = pread(fd, (char *)buf + done, n - done, (off_t)(at + (long long)done));
        if (got < 0) {
            if (errno == EINTR)
                continue;
            PyErr_SetFromErrno(PyExc_OSError);
            return -1;
        }
        if (got == 0) {
            PyErr_Format(PyExc_OSError, "lexicon table: the file ends %lld bytes in, inside what it says it holds",
                         at + (long long)done);
            return -1;
        }
        done += (size_t)got;
    }
    return 0;
}

/* get(fd, word, mask, index, at_records) -> value, or -1 when absent. `index` is the table's slot
 * index (the bytes of uint32 starts[n_slots + 1], checked when the table was opened: it starts at 0
 * and never decreases), `at_records` where the records begin in the file. */
static PyObject *
get(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5 || !PyUnicode_Check(args[1]) || !PyBytes_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "get: (fd, word str, mask, index bytes, at_records) expected");
        return NULL;
    }
    int fd = (int)PyLong_AsLong(args[0]);
    unsigned long long mask = PyLong_AsUnsignedLongLong(args[2]);
    long long at_records = PyLong_AsLongLong(args[4]);
    if (PyErr_Occurred())
        return NULL;
    const unsigned char *index = (const unsigned char *)PyBytes_AS_STRING(args[3]);
    if ((unsigned long long)PyBytes_GET_SIZE(args[3]) < 4 * (mask + 2)) {
        PyErr_SetString(PyExc_ValueError, "get: the index is shorter than the mask says");
        return NULL;
    }

    PyObject *key_obj = PyUnicode_AsEncodedString(args[1], "utf-8", "surrogatepass");
    if (key_obj == NULL)
        return NULL;
    const char *key = PyBytes_AS_STRING(key_obj);
    Py_ssize_t key_len = PyBytes_GET_SIZE(key_obj);
    uint32_t slot = crc32_of((const unsigned char *)key, key_len) & (uint32_t)mask;
    uint32_t first = le32(index + 4 * (size_t)slot), end = le32(index + 4 * ((size_t)slot + 1));
    long result = -1;
    if (end <= first) {
        Py_DECREF(key_obj);
        return PyLong_FromLong(result);
    }
    size_t n = end - first;
    unsigned char small[512], *records = small;
    if (n > sizeof small && (records = PyMem_Malloc(n)) == NULL) {
        Py_DECREF(key_obj);
        return PyErr_NoMemory();
    }
    int failed = read_at(fd, records, n, at_records + (long long)first) < 0;
    for (size_t at = 0; !failed && at + 4 <= n;) {
        size_t length = (size_t)records[at] | ((size_t)records[at + 1] << 8);
        long value = (long)records[at + 2] | ((long)records[at + 3] << 8);
        at += 4;
        if (length == (size_t)key_len && at + length <= n && memcmp(records + at, key, length) == 0) {
            result = value;
            break;
        }
        at += length;
    }
    if (records != small)
        PyMem_Free(records);
    Py_DECREF(key_obj);
    return failed ? NULL : PyLong_FromLong(result);
}

/* The spans of runs in `codes`, one entry per unit: the span tuple (start, end) shared by the units
 * of a run, None elsewhere. A run is what lexicon.py's regular expressions match, scanning left to
 * right: number == 0, a maximal run of units whose code is in `mask`  ([word codes]+); number == 1,
 * digits with single separators (an upper-case code) between digits ([dD]+(?:[A-Z][dD]+)*). */
static PyObject *
runs_of(const Py_UCS4 *codes, Py_ssize_t n, const unsigned char *mask, int number)
{
    PyObject *out = PyTuple_New(n);
    if (out == NULL)
        return NULL;
    Py_ssize_t i = 0;
    while (i < n) {
        Py_UCS4 c = codes[i];
        int starts = number ? (c == 'd' || c == 'D') : (c < 128 && mask[c]);
        if (!starts) {
            Py_INCREF(Py_None);
            PyTuple_SET_ITEM(out, i, Py_None);
            i++;
            continue;
        }
        Py_ssize_t j = i + 1;
        if (number) {
            while (j < n && (codes[j] == 'd' || codes[j] == 'D'))
                j++;
            while (j + 1 < n && codes[j] >= 'A' && codes[j] <= 'Z' && (codes[j + 1] == 'd' || codes[j + 1] == 'D')) {
                j += 2;
                while (j < n && (codes[j] == 'd' || codes[j] == 'D'))
                    j++;
            }
        } else {
            while (j < n && codes[j] < 128 && mask[codes[j]])
                j++;
        }
        PyObject *span = Py_BuildValue("(nn)", i, j);
        if (span == NULL) {
            for (Py_ssize_t k = i; k < n; k++) {  /* the rest filled, so the tuple can be freed */
                Py_INCREF(Py_None);
                PyTuple_SET_ITEM(out, k, Py_None);
            }
            Py_DECREF(out);
            return NULL;
        }
        for (Py_ssize_t k = i; k < j; k++) {
            Py_INCREF(span);
            PyTuple_SET_ITEM(out, k, span);
        }
        Py_DECREF(span);
        i = j;
    }
    return out;
}

/* layout(units, codes, kind_of_code, word_mask) -> (kinds, word_run, num_run, has_digit, offsets)
 *
 * units: the line's units (a tuple of str); codes: one code character per unit (lexicon.unit_codes);
 * kind_of_code: a tuple of 128 entries, the kind (a str) of each ASCII code character, None for the
 * others; word_mask: 128 bytes, non-zero for the codes of word units. What line_info computes with
 * map, two regular expressions and accumulate: the kind of each unit; the word run and the number
 * run holding each unit (lexicon._runs; every number run None when the line has no digit); whether
 * a digit code is there; the code point offset of each unit and the line's length. */
static PyObject *
layout(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyTuple_Check(args[0]) || !PyUnicode_Check(args[1]) || !PyTuple_Check(args[2])
        || PyTuple_GET_SIZE(args[2]) != 128 || !PyBytes_Check(args[3]) || PyBytes_GET_SIZE(args[3]) != 128) {
        PyErr_SetString(PyExc_TypeError, "layout: (units tuple, codes str, 128 kinds tuple, 128-byte mask) expected");
        return NULL;
    }
    PyObject *units = args[0], *kind_of_code = args[2];
    Py_ssize_t n = PyTuple_GET_SIZE(units);
    if (PyUnicode_GET_LENGTH(args[1]) != n) {
        PyErr_SetString(PyExc_ValueError, "layout: one code per unit expected");
        return NULL;
    }
    Py_UCS4 *codes = PyUnicode_AsUCS4Copy(args[1]);
    if (codes == NULL)
        return NULL;
    const unsigned char *mask = (const unsigned char *)PyBytes_AS_STRING(args[3]);
    PyObject *kinds = NULL, *words = NULL, *numbers = NULL, *offsets = NULL, *result = NULL;
    int has_digit = 0;
    if ((kinds = PyTuple_New(n)) == NULL || (offsets = PyTuple_New(n + 1)) == NULL)
        goto done;
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i <= n; i++) {
        PyObject *off = PyLong_FromSsize_t(at);
        if (off == NULL)
            goto done;
        PyTuple_SET_ITEM(offsets, i, off);
        if (i == n)
            break;
        PyObject *unit = PyTuple_GET_ITEM(units, i);
        Py_UCS4 c = codes[i];
        PyObject *kind = c < 128 ? PyTuple_GET_ITEM(kind_of_code, c) : Py_None;
        if (!PyUnicode_Check(unit) || kind == Py_None) {
            PyErr_SetString(PyExc_ValueError, "layout: a unit that is not a str, or a code without a kind");
            goto done;
        }
        Py_INCREF(kind);
        PyTuple_SET_ITEM(kinds, i, kind);
        has_digit |= (c == 'd' || c == 'D');
        at += PyUnicode_GET_LENGTH(unit);
    }
    if ((words = runs_of(codes, n, mask, 0)) == NULL)
        goto done;
    if (has_digit) {
        numbers = runs_of(codes, n, mask, 1);
    } else if ((numbers = PyTuple_New(n)) != NULL) {
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_INCREF(Py_None);
            PyTuple_SET_ITEM(numbers, i, Py_None);
        }
    }
    if (numbers != NULL)
        result = Py_BuildValue("(OOOOO)", kinds, words, numbers, has_digit ? Py_True : Py_False, offsets);
done:
    /* a tuple not filled to the end holds NULLs, which Py_DECREF of a tuple skips */
    Py_XDECREF(kinds);
    Py_XDECREF(words);
    Py_XDECREF(numbers);
    Py_XDECREF(offsets);
    PyMem_Free(codes);
    return result;
}

static PyMethodDef methods[] = {
    {"get", (PyCFunction)(void (*)(void))get, METH_FASTCALL,
     "get(fd, word, mask, index, at_records): the value of word, or -1."},
    {"layout", (PyCFunction)(void (*)(void))layout, METH_FASTCALL,
     "layout(units, codes, kind_of_code, word_mask): (kinds, word_run, num_run, has_digit, offsets)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_lexicon_speedups", "FileTable.get and line_info's loops in C (optional; identical answers).", -1, methods,
};

PyMODINIT_FUNC
PyInit__lexicon_speedups(void)
{
    init_crc_table();
    return PyModule_Create(&module);
}
