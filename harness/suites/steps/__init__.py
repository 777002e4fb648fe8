"""Every step a suite may use: the registry (:mod:`.registry`) and one module per family of steps,
with the helpers they share (payouts, payout meters, bulk rounds)."""
