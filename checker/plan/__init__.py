"""The run plan: what work a check is made of, how it is split into shards and spread over
processes, and the store of results that carry over between runs."""
