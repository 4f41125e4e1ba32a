"""The agent: action manager, modes, and (with the models layer) the loop that plays."""
