"""What a data card is built from, used inside the data layer: reading its YAML and table (``read``, bounded by
``read_limits``), how its values meet the cells (``values``), its column checks (``columns``), its item matrices
(``items``), its hierarchies (``hierarchies``), its report (``report``) and the files it reads (``inputs``).
:mod:`privnb.data.cards` is the public face.
"""
