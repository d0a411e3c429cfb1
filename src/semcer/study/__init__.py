"""Reader studies: draw items from judged edits, let readers rate them in a local web app, export
the ratings for ``semcer meta-eval``.

- :mod:`semcer.study.sources` reads the candidates (an edit list, a ``semcer score --json`` output,
  a judged-edit store; pairs from two or more score JSONs);
- :mod:`semcer.study.sampling` draws the pools (stratified single edits, near-miss pairs) and each
  reader's schedule (own shuffle, a few repeated items);
- :mod:`semcer.study.db` is the study file (one SQLite database, WAL, one row per rating);
- :mod:`semcer.study.export` writes meta-eval's input and the per-reader progress;
- :mod:`semcer.study.web` is the rating app (Starlette; extra ``semcer[study]``);
- :mod:`semcer.study.listen` checks and resolves where it listens (``--host``) and binds the socket.
"""
