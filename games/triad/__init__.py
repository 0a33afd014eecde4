"""Triad, the six-card draw game with cubit betting (docs/rules/triad.md).

``cards``     the deck and card codes (``14B``, ``13P``, ``2R``, ``C``)
``hands``     ``evaluate(six codes) -> HandValue`` (an int: compare hands with < == >)
``rules``     one hand's state machine (deal, betting rounds, draw, showdown, pots) and
              the one check of a table's options (``check_options``)
``table``     the table around it: players who sit, leave, go away and come back, their
              cubits in and out, when the table closes; its notation, JSON, view, words
``notation``  action text <-> Action, state JSON codec
``render``    ``view_for`` / ``render``: the table as a seat may see it
``ai``        the computer player
"""
