# expect: FAIL schema 2026-07-28: /params: missing required member "notifications" \(SubscriptionsAcknowledgedNotificationParams\) \(line 7\)
# --bug ackbad: the acknowledgement lacks notifications. It is checked as 2026-07-28 (the
# default revision, 2025-11-25, has no such notification at all).
config: fake.ini
args: --bug ackbad
> {"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged"}
close
< {"jsonrpc":"2.0","id":"L","result":"<any>"}
