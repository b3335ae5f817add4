"""The core: what every measure family shares.

Architecture
------------
irscore has three layers.  The **core** (this package) holds the data model
and everything that is not specific to one family; the **families** (each a
module or a package of `irscore`) compute measures; the **front ends**
(`irscore.cli`, [`irscore.plot`][irscore.plot], the package root) present them.
The compiled kernels ``irscore._<name>`` (built from
``csrc/irscore/<name>.pyx``) are leaves: they import nothing of the package.

Modules of the core (each imports only the core and the compiled kernels):

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
                CRP): their names and declared parameters (`Param`:
                name, type, default, allowed values; one parser), the module
                that computes them, and `family_values`
- ``joined``    `Joined` (frozen rank-ordered relevance lists, what
                every family consumes), `join`, `sort_arrays`
                (ranked lists from score/label arrays), `ranked_lists`,
                `ResultCache`
- ``checks``    shared checks of parameter values and ranked lists
- ``parallel``  the thread pool and the ``n_jobs`` rule
- ``report``    trec_eval's output line format

Families: `irscore.classic` (trec_eval's measures: name -> plan ->
`Joined` -> ``irscore._ranking`` -> aggregate), [`irscore.batch`][irscore.batch],
[`irscore.rocchio`][irscore.rocchio], [`irscore.crp`][irscore.crp], [`irscore.organization`][irscore.organization],
[`irscore.xml`][irscore.xml].  A family imports the core and its own package, never
another family (``tests/test_structure.py`` checks it).
"""
