mpackage = [[esterport]]
author = [[Esterport]]
title = [[Esterport board]]
description = [[A window beside the text that draws your current Esterport game from the parlor's GMCP: the board, who plays, and whose move it is. It adds a window and nothing else: no triggers, nothing hidden from the main window.]]
