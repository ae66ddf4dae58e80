"""``python -m lcnet`` runs the command line."""

import sys

from lcnet.cli import main

sys.exit(main())
