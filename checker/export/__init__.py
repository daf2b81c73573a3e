"""Exports of a lowered `System` to other tools: Promela for the SPIN model checker
(`promela.to_promela`), and the SPIN runner used as an independent cross-check
(`spin.run_spin`, `spin.run_spin_all`)."""
