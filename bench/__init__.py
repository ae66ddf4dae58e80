"""lcnet's benchmarks: each ``bench/NAME.py`` runs as ``python bench/NAME.py``
(or ``python -m bench.NAME``) and prints one figure a line, ``name: value
unit`` (bench/README.md has the figures and the commands). Scripts share
code through this package (``bench.duel``'s deals and seats); intervals come
from :mod:`lcnet.run.stats`, as ``lcnet selfplay``'s do."""
