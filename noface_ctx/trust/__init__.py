"""Trust from outcomes: the provenance ledger (`ledger`), what was served (`record`), how failures
and age weigh a doc (`effects`) and the commands `why`, `outcome`, `trust` (`commands`)."""
