// local stub, not committed
