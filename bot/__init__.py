"""dicebot: a self-hosted Discord bot for dice games played in server channels."""
