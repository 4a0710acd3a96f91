"""Tip of the Diceberg: drafting dice, shedding cards and dice into meld slots over three rounds."""
