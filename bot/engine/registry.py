"""Every engine module bound to the typed :class:`~bot.engine.protocol.Engine` it implements.

The annotated assignments are the proof: mypy (strict for ``bot.engine``) refuses any engine whose functions
or ``State`` do not match the protocol with that game's own state and action types.
"""

from __future__ import annotations

from bot.engine import dicepoker, kniffel, knister, tutto
from bot.engine.protocol import Engine

KNIFFEL: Engine[kniffel.State, kniffel.Action] = kniffel
DICEPOKER: Engine[dicepoker.State, dicepoker.Action] = dicepoker
KNISTER: Engine[knister.State, knister.Action] = knister
TUTTO: Engine[tutto.State, tutto.AnyAction] = tutto
