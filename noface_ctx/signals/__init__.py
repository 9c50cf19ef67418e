"""NEED_CODE / NEED_DOC requests: parsing agent output and answering it through the gate."""
