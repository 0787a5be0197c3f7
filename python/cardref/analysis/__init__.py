"""Rule analytics for game designers (``cardref analyze``): native games on
every core, summed in slices (``run``), turned into figures with intervals
(``stats``, ``summary``) and shown in the terminal (``terminal``), as JSON, or
as a page with plots (``htmlpage``)."""
