"""The core: what every measure family shares.

Architecture
------------
The core is irscore's lowest layer.  The layers, the units in each and the
import rules are stated once, in the package root's docstring (`irscore`,
"Architecture"; ``tests/project/test_structure.py`` checks them).

Modules of the core:

- ``data``      [`Qrels`][irscore.Qrels] and [`Run`][irscore.Run], columnar (CSR) qrels and runs
- ``io``        TREC qrels/run readers ([`read_qrels`][irscore.read_qrels], [`read_run`][irscore.read_run]),
                ``as_qrels``/``as_run`` (objects, dicts, DataFrames, paths)
- ``files``     one way to open a file: gzip detected by its magic bytes,
                errors naming the path (every reader of every family uses it)
- ``measures``  measure names (trec_eval, ir_measures, ranx spellings),
                [`Measure`][irscore.Measure], trec_eval's families
- ``names``     the lexical pieces of names (numbers, parameter lists, ranx's spellings)
- ``plan``      measures compiled into the kernel's ops (`compile_plan`)
- ``registry``  the families computed outside the trec_eval kernel (Rocchio,
                CRP, ...): their names, groups and declared parameters (`Param`:
                name, type, default, allowed values; one parser), and `family_values`
- ``plugins``   where the family of a registered group plugs in the function
                that computes it (the core names no family)
- ``joined``    `Joined` (frozen rank-ordered relevance lists, what
                every family consumes), `join`, `sort_arrays`
                (ranked lists from score/label arrays), `ranked_lists`,
                `ResultCache`
- ``checks``    shared checks of parameter values and ranked lists
- ``parallel``  the thread pool and the ``n_jobs`` rule
- ``report``    trec_eval's output line format
"""
