"""simdx as a networkx backend: existing networkx code runs on simdx unchanged.

Installing the ``simdx`` package registers the backend (the ``networkx.backends`` and
``networkx.backend_info`` entry points in ``pyproject.toml``)::

    import networkx as nx
    G = nx.karate_club_graph()
    ranks = nx.pagerank(G, backend="simdx")            # this call on simdx
    nx.config.backend_priority.algos = ["simdx"]       # or every call simdx implements

networkx converts the graph once (:func:`graph.convert_from_nx`) and keeps the conversion in
``G.__networkx_cache__``; calls with arguments simdx does not implement fall back to networkx
(:mod:`.dispatch`). The algorithms live in :mod:`.link_analysis`, :mod:`.paths`, :mod:`.components`,
:mod:`.centrality`, :mod:`.distance`, :mod:`.cluster`, :mod:`.link_prediction` and :mod:`.community`; the
object networkx loads is :data:`.interface.backend_interface`. ``SIMDX_NETWORKX_DEVICE`` (``auto``, ``cpu``, ``cuda``) chooses
where simdx runs.
"""
