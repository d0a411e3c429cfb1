/* The per-line loop of semcer.alignment.engine, in C: alignment call, counts and result tuples.
 *
 * It does exactly what the pure-Python loop in engine.py (_python_lines) does, line for line,
 * and is optional: when this module is missing (no compiler at install time) or
 * SEMCER_PURE_PYTHON=1 is set, the Python loop runs instead. tests/alignment/test_engine.py checks that
 * both give identical results.
 *
 * It also builds the judge contexts of a line's edits (contexts(), below), as
 * semcer.alignment.context._context does.
 *
 * The results are NamedTuple instances (LineStats, Edit, Alignment, LineResult); they are made
 * the way tuple.__new__(cls, items) makes them (tp_alloc of the class, then the items), without
 * the temporary tuple.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *editops_fn, *clusters_type;
static PyTypeObject *line_stats_t, *line_result_t, *alignment_t, *edit_t;
static PyObject *s_S, *s_D, *s_I, *s_empty, *s_as_list;

static PyObject *
new_tuple(PyTypeObject *type, Py_ssize_t n)
{
    return type->tp_alloc(type, n);
}

static PyObject *
setup(PyObject *self, PyObject *args)
{
    PyObject *ed, *cl, *ls, *lr, *al, *e;
    if (!PyArg_ParseTuple(args, "OOO!O!O!O!", &ed, &cl, &PyType_Type, &ls, &PyType_Type, &lr,
                          &PyType_Type, &al, &PyType_Type, &e))
        return NULL;
    PyObject *types[4] = {ls, lr, al, e};
    for (int k = 0; k < 4; k++) {
        if (!PyType_IsSubtype((PyTypeObject *)types[k], &PyTuple_Type)) {
            PyErr_SetString(PyExc_TypeError, "setup: result types must be tuple subclasses");
            return NULL;
        }
    }
    Py_XSETREF(editops_fn, Py_NewRef(ed));
    Py_XSETREF(clusters_type, Py_NewRef(cl));
    Py_XSETREF(line_stats_t, (PyTypeObject *)Py_NewRef(ls));
    Py_XSETREF(line_result_t, (PyTypeObject *)Py_NewRef(lr));
    Py_XSETREF(alignment_t, (PyTypeObject *)Py_NewRef(al));
    Py_XSETREF(edit_t, (PyTypeObject *)Py_NewRef(e));
    Py_RETURN_NONE;
}

/* The unit at index i of a sequence (str or list), through the id names when given. */
static PyObject *
unit_at(PyObject *seq, PyObject *index, PyObject *names)
{
    Py_ssize_t i = PyLong_AsSsize_t(index);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    PyObject *u;
    if (PyList_CheckExact(seq)) {
        if (i < 0 || i >= PyList_GET_SIZE(seq)) {
            PyErr_SetString(PyExc_IndexError, "edit index out of range");
            return NULL;
        }
        u = Py_NewRef(PyList_GET_ITEM(seq, i));
    }
    else {
        u = PySequence_GetItem(seq, i);
        if (u == NULL)
            return NULL;
    }
    if (names != NULL) {
        PyObject *named = PyDict_GetItemWithError(names, u);
        if (named != NULL) {
            Py_DECREF(u);
            return Py_NewRef(named);
        }
        if (PyErr_Occurred()) {
            Py_DECREF(u);
            return NULL;
        }
    }
    return u;
}

/* Typed edits from a list of (tag, i, j) tuples. */
static PyObject *
make_edits(PyObject *ops, PyObject *a, PyObject *b, PyObject *names)
{
    Py_ssize_t n = PyList_GET_SIZE(ops);
    PyObject *out = PyTuple_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *op = PyList_GET_ITEM(ops, k);
        if (!PyTuple_Check(op) || PyTuple_GET_SIZE(op) != 3) {
            PyErr_SetString(PyExc_TypeError, "editops: expected (tag, i, j) tuples");
            goto fail;
        }
        PyObject *tag = PyTuple_GET_ITEM(op, 0), *i = PyTuple_GET_ITEM(op, 1), *j = PyTuple_GET_ITEM(op, 2);
        Py_UCS4 c = PyUnicode_Check(tag) && PyUnicode_GET_LENGTH(tag) ? PyUnicode_READ_CHAR(tag, 0) : 0;
        PyObject *letter, *ru, *hu;
        if (c == 'r') {
            letter = s_S;
            ru = unit_at(a, i, names);
            hu = ru ? unit_at(b, j, names) : NULL;
        }
        else if (c == 'd') {
            letter = s_D;
            ru = unit_at(a, i, names);
            hu = ru ? Py_NewRef(s_empty) : NULL;
        }
        else if (c == 'i') {
            letter = s_I;
            ru = Py_NewRef(s_empty);
            hu = unit_at(b, j, names);
        }
        else {
            PyErr_SetString(PyExc_ValueError, "editops: unknown tag");
            goto fail;
        }
        if (ru == NULL || hu == NULL) {
            Py_XDECREF(ru);
            goto fail;
        }
        PyObject *e = new_tuple(edit_t, 7);
        if (e == NULL) {
            Py_DECREF(ru);
            Py_DECREF(hu);
            goto fail;
        }
        PyTuple_SET_ITEM(e, 0, Py_NewRef(letter));
        PyTuple_SET_ITEM(e, 1, Py_NewRef(i));
        PyTuple_SET_ITEM(e, 2, Py_NewRef(j));
        PyTuple_SET_ITEM(e, 3, ru);
        PyTuple_SET_ITEM(e, 4, hu);
        PyTuple_SET_ITEM(e, 5, Py_NewRef(Py_None));
        PyTuple_SET_ITEM(e, 6, Py_NewRef(Py_None));
        PyTuple_SET_ITEM(out, k, e);
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *
as_units(PyObject *seq, PyObject *text, PyObject *names)
{
    if (seq == text || PyList_CheckExact(seq))
        return Py_NewRef(seq);
    return PyObject_CallFunctionObjArgs(clusters_type, seq, names, NULL);
}

/* lines(chunk, texts, seqs, names, need_edits, start, rows) -> int
 *
 * Scores lines start.. of the chunk and appends a LineResult for each to rows. Stops at the first
 * line whose reference has no units and returns its index, for the caller to handle (then it calls
 * again from the next line); returns -1 when every line is done. */
static PyObject *
lines(PyObject *self, PyObject *args)
{
    PyObject *chunk, *texts, *seqs, *names, *rows;
    int need_edits;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "O!O!O!O!pnO!", &PyList_Type, &chunk, &PyList_Type, &texts,
                          &PyList_Type, &seqs, &PyDict_Type, &names, &need_edits, &start, &PyList_Type, &rows))
        return NULL;
    if (editops_fn == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "semcer.alignment._speedups.setup() was not called");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(chunk);
    if (PyList_GET_SIZE(texts) != 2 * n || PyList_GET_SIZE(seqs) != 2 * n) {
        PyErr_SetString(PyExc_ValueError, "texts and seqs must hold 2 * len(chunk) items");
        return NULL;
    }
    for (Py_ssize_t k = start; k < n; k++) {
        PyObject *p = PyList_GET_ITEM(chunk, k);
        if (!PyTuple_Check(p) || PyTuple_GET_SIZE(p) < 5) {
            PyErr_SetString(PyExc_TypeError, "chunk items must be (id, ref, hyp, doc, lang) tuples");
            return NULL;
        }
        PyObject *r = PyList_GET_ITEM(texts, k), *h = PyList_GET_ITEM(texts, n + k);
        PyObject *a = PyList_GET_ITEM(seqs, k), *b = PyList_GET_ITEM(seqs, n + k);
        Py_ssize_t la = PyObject_Length(a);
        if (la < 0)
            return NULL;
        int same = PyObject_RichCompareBool(r, h, Py_EQ);
        if (same < 0)
            return NULL;
        PyObject *ops;
        Py_ssize_t s = 0, d = 0, ins = 0;
        if (same) {
            b = a;
            ops = PyList_New(0);
            if (ops == NULL)
                return NULL;
        }
        else {
            PyObject *res = PyObject_CallFunctionObjArgs(editops_fn, a, b, NULL);
            if (res == NULL)
                return NULL;
            ops = PyObject_CallMethodNoArgs(res, s_as_list);
            Py_DECREF(res);
            if (ops == NULL)
                return NULL;
            if (!PyList_CheckExact(ops)) {
                Py_DECREF(ops);
                PyErr_SetString(PyExc_TypeError, "editops().as_list() did not return a list");
                return NULL;
            }
            Py_ssize_t lb = PyObject_Length(b);
            if (lb < 0) {
                Py_DECREF(ops);
                return NULL;
            }
            Py_ssize_t m = PyList_GET_SIZE(ops);
            for (Py_ssize_t q = 0; q < m; q++) {
                PyObject *op = PyList_GET_ITEM(ops, q);
                PyObject *tag = PyTuple_Check(op) && PyTuple_GET_SIZE(op) ? PyTuple_GET_ITEM(op, 0) : NULL;
                if (tag != NULL && PyUnicode_Check(tag) && PyUnicode_GET_LENGTH(tag) && PyUnicode_READ_CHAR(tag, 0) == 'i')
                    ins++;
            }
            /* deletions - insertions = la - lb */
            d = ins + la - lb;
            s = m - ins - d;
        }
        if (la == 0) {
            Py_DECREF(ops);
            return PyLong_FromSsize_t(k);
        }
        PyObject *stats = new_tuple(line_stats_t, 5);
        if (stats == NULL) {
            Py_DECREF(ops);
            return NULL;
        }
        PyTuple_SET_ITEM(stats, 0, PyLong_FromSsize_t(s));
        PyTuple_SET_ITEM(stats, 1, PyLong_FromSsize_t(d));
        PyTuple_SET_ITEM(stats, 2, PyLong_FromSsize_t(ins));
        PyTuple_SET_ITEM(stats, 3, PyLong_FromSsize_t(la));
        PyTuple_SET_ITEM(stats, 4, Py_NewRef(Py_None));
        for (int q = 0; q < 4; q++) {
            if (PyTuple_GET_ITEM(stats, q) == NULL) {
                Py_DECREF(stats);
                Py_DECREF(ops);
                return NULL;
            }
        }
        PyObject *row = new_tuple(line_result_t, 6);
        if (row == NULL) {
            Py_DECREF(stats);
            Py_DECREF(ops);
            return NULL;
        }
        PyTuple_SET_ITEM(row, 0, Py_NewRef(PyTuple_GET_ITEM(p, 0)));
        PyTuple_SET_ITEM(row, 1, Py_NewRef(PyTuple_GET_ITEM(p, 3)));
        PyTuple_SET_ITEM(row, 2, Py_NewRef(PyTuple_GET_ITEM(p, 4)));
        PyTuple_SET_ITEM(row, 3, stats); /* the row owns it from here */
        if (need_edits) {
            PyObject *ru = as_units(a, r, names);
            PyObject *hu = ru == NULL ? NULL : b == a ? Py_NewRef(ru) : as_units(b, h, names);
            PyObject *ed = hu == NULL ? NULL : make_edits(ops, a, b, (ru != a || hu != b) ? names : NULL);
            PyObject *al = ed == NULL ? NULL : new_tuple(alignment_t, 7);
            if (al == NULL) {
                Py_XDECREF(ru);
                Py_XDECREF(hu);
                Py_XDECREF(ed);
                Py_DECREF(row);
                Py_DECREF(ops);
                return NULL;
            }
            PyTuple_SET_ITEM(al, 0, Py_NewRef(r));
            PyTuple_SET_ITEM(al, 1, Py_NewRef(h));
            PyTuple_SET_ITEM(al, 2, ru);
            PyTuple_SET_ITEM(al, 3, hu);
            PyTuple_SET_ITEM(al, 4, Py_NewRef(ed));
            PyTuple_SET_ITEM(al, 5, Py_NewRef(stats));
            PyTuple_SET_ITEM(al, 6, Py_NewRef(Py_False));
            PyTuple_SET_ITEM(row, 4, ed);
            PyTuple_SET_ITEM(row, 5, al);
        }
        else {
            PyTuple_SET_ITEM(row, 4, Py_NewRef(Py_None));
            PyTuple_SET_ITEM(row, 5, Py_NewRef(Py_None));
        }
        Py_DECREF(ops);
        int err = PyList_Append(rows, row);
        Py_DECREF(row);
        if (err < 0)
            return NULL;
    }
    return PyLong_FromLong(-1);
}

/* ---- contexts(): the judge contexts of one line's edits (semcer.alignment.context._context) ----
 *
 * For each edit, what _context() builds, field for field: the whole line when both sides fit in the
 * window (the two texts shared by every edit of the line), else the window of units around the
 * edit on each side; the marked pair; and an EditContext made as object.__new__ makes it, its
 * fields then set through the class's own slot descriptors (the frozen dataclass's __init__ does
 * the same through object.__setattr__). Offsets are None when every unit is one code point, else
 * the list of where each unit starts in the text, plus the text's length.
 */
#define N_CONTEXT_FIELDS 15
static PyTypeObject *context_t;
static PyObject *context_fields[N_CONTEXT_FIELDS];
static PyObject *s_open, *s_close;

static PyObject *
setup_contexts(PyObject *self, PyObject *args)
{
    PyObject *cls, *descrs, *names, *open, *close;
    if (!PyArg_ParseTuple(args, "O!O!O!UU", &PyType_Type, &cls, &PyTuple_Type, &descrs, &PyTuple_Type, &names,
                          &open, &close))
        return NULL;
    static const char *expected[N_CONTEXT_FIELDS] = {
        "lang", "op", "ref_unit", "hyp_unit", "ref_pos", "hyp_pos", "ref", "hyp", "marked_ref", "marked_hyp",
        "line_id", "doc", "lang_source", "ref_start", "hyp_start"};
    if (PyTuple_GET_SIZE(descrs) != N_CONTEXT_FIELDS || PyTuple_GET_SIZE(names) != N_CONTEXT_FIELDS) {
        PyErr_SetString(PyExc_TypeError, "setup_contexts: the context class must have 15 fields");
        return NULL;
    }
    for (int k = 0; k < N_CONTEXT_FIELDS; k++) {
        PyObject *d = PyTuple_GET_ITEM(descrs, k), *name = PyTuple_GET_ITEM(names, k);
        if (!PyUnicode_Check(name) || PyUnicode_CompareWithASCIIString(name, expected[k]) != 0
            || Py_TYPE(d)->tp_descr_set == NULL) {
            PyErr_Format(PyExc_TypeError, "setup_contexts: field %d must be the slot %s", k, expected[k]);
            return NULL;
        }
    }
    for (int k = 0; k < N_CONTEXT_FIELDS; k++)
        Py_XSETREF(context_fields[k], Py_NewRef(PyTuple_GET_ITEM(descrs, k)));
    Py_XSETREF(context_t, (PyTypeObject *)Py_NewRef(cls));
    Py_XSETREF(s_open, Py_NewRef(open));
    Py_XSETREF(s_close, Py_NewRef(close));
    Py_RETURN_NONE;
}

/* Offset i of a side (offsets None: i itself); bounds are checked by the caller. */
static Py_ssize_t
offset_at(PyObject *offsets, Py_ssize_t i)
{
    return offsets == Py_None ? i : PyLong_AsSsize_t(PyList_GET_ITEM(offsets, i));
}

/* Units of a side: len(text) when offsets is None, else len(offsets) - 1; -1 with an exception. */
static Py_ssize_t
units_of(PyObject *text, PyObject *offsets)
{
    if (offsets == Py_None)
        return PyUnicode_GET_LENGTH(text);
    if (!PyList_CheckExact(offsets) || PyList_GET_SIZE(offsets) < 1) {
        PyErr_SetString(PyExc_TypeError, "contexts: offsets must be None or a non-empty list");
        return -1;
    }
    return PyList_GET_SIZE(offsets) - 1;
}

/* The largest code point of text[lo:hi] (exactly: a new string must take the narrowest kind, and the
 * ASCII flag, that its characters allow, as every string CPython makes does). */
static Py_UCS4
max_char(PyObject *text, Py_ssize_t lo, Py_ssize_t hi)
{
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_UCS4 m = 0;
    for (Py_ssize_t i = lo; i < hi; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c > m)
            m = c;
    }
    return m;
}

/* text[lo:a] + open + text[a:b] + close + text[b:hi], as a new string in its exact kind. */
static PyObject *
marked(PyObject *text, Py_ssize_t lo, Py_ssize_t a, Py_ssize_t b, Py_ssize_t hi)
{
    Py_UCS4 m = max_char(text, lo, hi), mo = PyUnicode_MAX_CHAR_VALUE(s_open), mc = PyUnicode_MAX_CHAR_VALUE(s_close);
    Py_ssize_t no = PyUnicode_GET_LENGTH(s_open), nc = PyUnicode_GET_LENGTH(s_close);
    m = m > mo ? m : mo;
    m = m > mc ? m : mc;
    PyObject *out = PyUnicode_New((hi - lo) + no + nc, m);
    if (out == NULL)
        return NULL;
    PyObject *from[5] = {text, s_open, text, s_close, text};
    Py_ssize_t start[5] = {lo, 0, a, 0, b}, len[5] = {a - lo, no, b - a, nc, hi - b}, at = 0;
    for (int k = 0; k < 5; k++) {
        if (PyUnicode_CopyCharacters(out, at, from[k], start[k], len[k]) < 0)
            goto fail;
        at += len[k];
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *
new_context(PyObject **values)
{
    PyObject *obj = context_t->tp_alloc(context_t, 0);
    if (obj == NULL)
        return NULL;
    for (int k = 0; k < N_CONTEXT_FIELDS; k++) {
        if (Py_TYPE(context_fields[k])->tp_descr_set(context_fields[k], obj, values[k]) < 0) {
            Py_DECREF(obj);
            return NULL;
        }
    }
    return obj;
}

/* One side of an edit: the unit's [a, b) and the window's [lo, hi) in the text, its first unit w0. */
typedef struct {
    Py_ssize_t a, b, lo, hi, w0;
} side_t;

static int
side_of(PyObject *text, PyObject *offsets, Py_ssize_t n, Py_ssize_t pos, int present, int whole, Py_ssize_t window,
        side_t *s)
{
    if (pos < 0 || pos > n - present) {
        PyErr_SetString(PyExc_IndexError, "contexts: an edit's position is outside its line");
        return -1;
    }
    s->a = offset_at(offsets, pos);
    s->b = present ? offset_at(offsets, pos + 1) : s->a;
    if (whole) {
        s->w0 = 0;
        s->lo = 0;
        s->hi = PyUnicode_GET_LENGTH(text);
    }
    else {
        Py_ssize_t w1 = pos + window + present;
        s->w0 = pos > window ? pos - window : 0;
        s->lo = offset_at(offsets, s->w0);
        s->hi = offset_at(offsets, w1 < n ? w1 : n);
    }
    if (PyErr_Occurred())
        return -1;
    if (!(0 <= s->lo && s->lo <= s->a && s->a <= s->b && s->b <= s->hi && s->hi <= PyUnicode_GET_LENGTH(text))) {
        PyErr_SetString(PyExc_ValueError, "contexts: the offsets do not fit the text");
        return -1;
    }
    return 0;
}

static PyObject *
one_context(PyObject *e, PyObject *ref, PyObject *hyp, PyObject *ro, PyObject *ho, Py_ssize_t nr, Py_ssize_t nh,
            int whole, Py_ssize_t window, PyObject *const *fixed)
{
    if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) < 5) {
        PyErr_SetString(PyExc_TypeError, "contexts: an edit must be an Edit");
        return NULL;
    }
    PyObject *op = PyTuple_GET_ITEM(e, 0);
    if (!PyUnicode_Check(op) || PyUnicode_GET_LENGTH(op) != 1) {
        PyErr_SetString(PyExc_ValueError, "contexts: an edit's op must be S, D or I");
        return NULL;
    }
    Py_UCS4 code = PyUnicode_READ_CHAR(op, 0);
    Py_ssize_t rp = PyLong_AsSsize_t(PyTuple_GET_ITEM(e, 1)), hp = PyLong_AsSsize_t(PyTuple_GET_ITEM(e, 2));
    if ((rp == -1 || hp == -1) && PyErr_Occurred())
        return NULL;
    side_t r, h;
    if (side_of(ref, ro, nr, rp, code != 'I', whole, window, &r) < 0
        || side_of(hyp, ho, nh, hp, code != 'D', whole, window, &h) < 0)
        return NULL;
    PyObject *values[N_CONTEXT_FIELDS] = {
        fixed[0], op, PyTuple_GET_ITEM(e, 3), PyTuple_GET_ITEM(e, 4), NULL, NULL, NULL, NULL, NULL, NULL,
        fixed[1], fixed[2], fixed[3], NULL, NULL};
    values[4] = whole ? Py_NewRef(PyTuple_GET_ITEM(e, 1)) : PyLong_FromSsize_t(rp - r.w0);
    values[5] = whole ? Py_NewRef(PyTuple_GET_ITEM(e, 2)) : PyLong_FromSsize_t(hp - h.w0);
    values[6] = whole ? Py_NewRef(ref) : PyUnicode_Substring(ref, r.lo, r.hi);
    values[7] = whole ? Py_NewRef(hyp) : PyUnicode_Substring(hyp, h.lo, h.hi);
    values[8] = marked(ref, r.lo, r.a, r.b, r.hi);
    values[9] = marked(hyp, h.lo, h.a, h.b, h.hi);
    values[13] = PyLong_FromSsize_t(r.w0);
    values[14] = PyLong_FromSsize_t(h.w0);
    PyObject *ctx = NULL;
    int made = 1;
    for (int k = 4; k < N_CONTEXT_FIELDS; k++)
        if (k < 10 || k > 12)
            made = made && values[k] != NULL;
    if (made)
        ctx = new_context(values);
    for (int k = 4; k < N_CONTEXT_FIELDS; k++)
        if (k < 10 || k > 12)
            Py_XDECREF(values[k]);
    return ctx;
}

/* contexts(edits, ref, hyp, ref_offsets, hyp_offsets, lang, line_id, doc, lang_source, window) -> list */
static PyObject *
contexts(PyObject *self, PyObject *args)
{
    PyObject *edits, *ref, *hyp, *ro, *ho, *lang, *line_id, *doc, *source;
    Py_ssize_t window;
    if (context_t == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "contexts: setup_contexts() was not called");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OUUOOUUUUn", &edits, &ref, &hyp, &ro, &ho, &lang, &line_id, &doc, &source, &window))
        return NULL;
    Py_ssize_t nr = units_of(ref, ro), nh = nr < 0 ? -1 : units_of(hyp, ho);
    if (nh < 0)
        return NULL;
    if (window < 1) {
        PyErr_SetString(PyExc_ValueError, "contexts: the window must be at least 1 unit");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(edits, "contexts: edits must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    if (out == NULL) {
        Py_DECREF(seq);
        return NULL;
    }
    PyObject *const fixed[4] = {lang, line_id, doc, source};
    int whole = nr <= window && nh <= window;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *ctx = one_context(PySequence_Fast_GET_ITEM(seq, i), ref, hyp, ro, ho, nr, nh, whole, window, fixed);
        if (ctx == NULL) {
            Py_DECREF(out);
            Py_DECREF(seq);
            return NULL;
        }
        PyList_SET_ITEM(out, i, ctx);
    }
    Py_DECREF(seq);
    return out;
}

/* The length of unit i: of a list's string, or of a Clusters id's name (1 for an id that is a code
 * point, or a reserved id without a name, as names.get(id, id) reads it); -1 with an exception. */
static Py_ssize_t
unit_length(PyObject *units, PyObject *ids, PyObject *names, Py_ssize_t i, unsigned long lo, unsigned long hi)
{
    PyObject *unit;
    if (ids == NULL) {
        unit = PyList_GET_ITEM(units, i);
    }
    else {
        Py_UCS4 c = PyUnicode_READ_CHAR(ids, i);
        if (c < lo || c >= hi)
            return 1;
        PyObject *key = PyUnicode_FromOrdinal((int)c);
        if (key == NULL)
            return -1;
        unit = PyDict_GetItemWithError(names, key); /* borrowed */
        Py_DECREF(key);
        if (unit == NULL)
            return PyErr_Occurred() ? -1 : 1;
    }
    if (!PyUnicode_Check(unit)) {
        PyErr_SetString(PyExc_TypeError, "offsets: every unit must be a str");
        return -1;
    }
    return PyUnicode_GET_LENGTH(unit);
}

/* offsets(units, text, Clusters, reserved_lo, reserved_hi) -> where each unit of units (a list of
 * strings, or a Clusters: its id string and names) starts in text, their concatenation, plus
 * len(text): what list(accumulate(map(len, units), initial=0)) gives (context._offsets). A
 * Clusters id outside [reserved_lo, reserved_hi) is a code point, its own one-character name; an
 * id inside it is looked up in names, as Clusters.__iter__ does (names.get(id, id)). */
static PyObject *
unit_offsets(PyObject *self, PyObject *args)
{
    PyObject *units, *text, *cls;
    unsigned long lo, hi;
    if (!PyArg_ParseTuple(args, "OUOkk", &units, &text, &cls, &lo, &hi))
        return NULL;
    PyObject *ids = NULL, *names = NULL;
    Py_ssize_t n;
    if (PyList_CheckExact(units)) {
        n = PyList_GET_SIZE(units);
    }
    else if (PyObject_TypeCheck(units, (PyTypeObject *)cls)) {
        ids = PyObject_GetAttrString(units, "ids");
        names = ids == NULL ? NULL : PyObject_GetAttrString(units, "names");
        if (names == NULL || !PyUnicode_Check(ids) || !PyDict_Check(names)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "offsets: a Clusters must hold an id string and a dict of names");
            Py_XDECREF(ids);
            Py_XDECREF(names);
            return NULL;
        }
        n = PyUnicode_GET_LENGTH(ids);
    }
    else {
        PyErr_SetString(PyExc_TypeError, "offsets: units must be a list or a Clusters");
        return NULL;
    }
    PyObject *out = PyList_New(n + 1);
    if (out == NULL)
        goto fail;
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *start = PyLong_FromSsize_t(at);
        if (start == NULL)
            goto fail;
        PyList_SET_ITEM(out, i, start);
        Py_ssize_t len = unit_length(units, ids, names, i, lo, hi);
        if (len < 0)
            goto fail;
        at += len;
    }
    PyObject *end = PyLong_FromSsize_t(at);
    if (end == NULL)
        goto fail;
    PyList_SET_ITEM(out, n, end);
    Py_XDECREF(ids);
    Py_XDECREF(names);
    return out;
fail:
    Py_XDECREF(out);
    Py_XDECREF(ids);
    Py_XDECREF(names);
    return NULL;
}

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS,
     "setup(editops, Clusters, LineStats, LineResult, Alignment, Edit): what lines() calls and builds."},
    {"lines", lines, METH_VARARGS,
     "lines(chunk, texts, seqs, names, need_edits, start, rows) -> index of the first line with an "
     "empty reference, or -1 when all lines are appended to rows."},
    {"setup_contexts", setup_contexts, METH_VARARGS,
     "setup_contexts(EditContext, slot descriptors, field names, mark_open, mark_close): what contexts() builds."},
    {"offsets", unit_offsets, METH_VARARGS,
     "offsets(units, text, Clusters, reserved_lo, reserved_hi) -> where each unit starts in text, plus "
     "len(text) (semcer.alignment.context._offsets)."},
    {"contexts", contexts, METH_VARARGS,
     "contexts(edits, ref, hyp, ref_offsets, hyp_offsets, lang, line_id, doc, lang_source, window) -> "
     "the EditContext of each edit (semcer.alignment.context._context)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "semcer.alignment._speedups",
    "The per-line loop of semcer.alignment.engine in C (optional; see engine._python_lines).", -1, methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    s_S = PyUnicode_InternFromString("S");
    s_D = PyUnicode_InternFromString("D");
    s_I = PyUnicode_InternFromString("I");
    s_empty = PyUnicode_InternFromString("");
    s_as_list = PyUnicode_InternFromString("as_list");
    if (!s_S || !s_D || !s_I || !s_empty || !s_as_list)
        return NULL;
    return PyModule_Create(&module);
}
