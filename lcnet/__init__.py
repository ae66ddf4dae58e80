"""lcnet: Lost Cities played peer to peer, with a masked deck and signed, auditable logs."""

__version__ = "0.1.0"
