"""The partner API's endpoints that the project serves itself (``/api/v1/``, beside ``partners.api``'s): those
built on the tables' lifecycle (``casino.lifecycle``), which the partners package, below it, may not import."""
