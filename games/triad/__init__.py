"""Triad, the six-card draw game with cubit betting (rules/triad.md).

``cards``     the deck and card codes (``14B``, ``13P``, ``2R``, ``C``)
``hands``     ``evaluate(six codes) -> HandValue`` (an int: compare hands with < == >)
``rules``     the table state machine (deal, betting rounds, draw, showdown, pots)
``notation``  action text <-> Action, state JSON codec
``render``    ``view_for`` / ``render``: the table as a seat may see it
``ai``        the computer player
"""
