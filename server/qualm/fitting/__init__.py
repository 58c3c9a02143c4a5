"""Offline fitting: a model's calibration file, the percentile reference and the chance of passing.

Run by ``qualm calibrate`` and the benchmarks, never by the server (an import contract in
pyproject.toml, checked by tests/unit/test_import_contract.py): the server only loads the file
(``qualm.calibration_file``). Fitting needs scikit-learn and SciPy (the ``eval`` extra).

* ``calibrate``: the percentile reference from the model's own code of reference problems;
* ``reference_data``: the reference problems (HumanEval, MBPP and its splits), also read by
  ``qualm.evaluation``;
* ``pairs``: the right/wrong pairs and the results measured of them, as fit examples;
* ``measure``: both functions of each pair assessed as a user's function is (``qualm calibrate --pairs``);
* ``chance_fit``: one logistic fit of the chance of passing, and its reliability;
* ``chain``: the chain of fits chosen by cross-validation and fitted on the tune split, and the
  calibration file from the pairs;
* ``validation``: AUROC with its bootstrap interval, and the chain's quality on the holdout split;
* ``fit_inputs``: each model's manifest of the rows its shipped chance is fitted on.
"""
