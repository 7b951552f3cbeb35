# Input validation: arguments that break a tool's inputSchema never reach the plugin; the
# answer is a tool error (isError, SEP-1303) naming the failing path. Output validation: a
# tool whose structured result breaks its own outputSchema, or that gives none, is a -32603
# naming the tool; one that keeps it gets structuredContent and a text mirror.
config: conf/features.ini
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":"<any>"}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
# Valid: the plugin echoes what it got.
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"strict","arguments":{"count":3,"name":"abc"}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"count\":3,\"name\":\"abc\"}"}],"isError":"<absent>"}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"strict","arguments":{"count":10,"name":"abcdefgh","mode":"slow","colors":["red","blue"],"label":"ééé"}}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\"count\":10,\"name\":\"abcdefgh\",\"mode\":\"slow\",\"colors\":[\"red\",\"blue\"],\"label\":\"ééé\"}"}],"isError":"<absent>"}}
# 1.0 is an integer in JSON Schema.
> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"strict","arguments":{"count":1.0,"name":"z"}}}
< {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"{\"count\":1,\"name\":\"z\"}"}],"isError":"<absent>"}}
# minimum and maximum.
> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"strict","arguments":{"count":0,"name":"abc"}}}
< {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"~^Invalid arguments for tool 'strict': /count: .*>= 1"}],"isError":true}}
> {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"strict","arguments":{"count":11,"name":"abc"}}}
< {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"~^Invalid arguments for tool 'strict': /count: .*<= 10"}],"isError":true}}
# integer: neither a fraction nor a string.
> {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"strict","arguments":{"count":1.5,"name":"abc"}}}
< {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"~/count: .*integer"}],"isError":true}}
> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"strict","arguments":{"count":"3","name":"abc"}}}
< {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"~/count: .*integer"}],"isError":true}}
# pattern and maxLength (counted in characters: "ééé" above is 3, this is 4).
> {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"strict","arguments":{"count":3,"name":"ABC"}}}
< {"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"~/name: .*pattern"}],"isError":true}}
> {"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"strict","arguments":{"count":3,"name":"abcdefghi"}}}
< {"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"~/name: .*8"}],"isError":true}}
> {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"strict","arguments":{"count":3,"name":"abc","label":"éééé"}}}
< {"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"~/label: .*3"}],"isError":true}}
# enum.
> {"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"strict","arguments":{"count":3,"name":"abc","mode":"medium"}}}
< {"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"~/mode: .*enum"}],"isError":true}}
# Array: minItems, and items through a $ref into $defs (the failing element is named).
> {"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"strict","arguments":{"count":3,"name":"abc","colors":[]}}}
< {"jsonrpc":"2.0","id":13,"result":{"content":[{"type":"text","text":"~/colors: .*at least 1"}],"isError":true}}
> {"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"strict","arguments":{"count":3,"name":"abc","colors":["red","pink"]}}}
< {"jsonrpc":"2.0","id":14,"result":{"content":[{"type":"text","text":"~/colors/1: "}],"isError":true}}
> {"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"strict","arguments":{"count":3,"name":"abc","colors":"red"}}}
< {"jsonrpc":"2.0","id":15,"result":{"content":[{"type":"text","text":"~/colors: .*array"}],"isError":true}}
# additionalProperties false, and required.
> {"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"strict","arguments":{"count":3,"name":"abc","extra":1}}}
< {"jsonrpc":"2.0","id":16,"result":{"content":[{"type":"text","text":"~extra"}],"isError":true}}
> {"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"strict","arguments":{"count":3}}}
< {"jsonrpc":"2.0","id":17,"result":{"content":[{"type":"text","text":"~required.*name"}],"isError":true}}
> {"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"strict"}}
< {"jsonrpc":"2.0","id":18,"result":{"content":[{"type":"text","text":"~required.*count"}],"isError":true}}
# Output schemas.
> {"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"bad_output","arguments":{}}}
< {"jsonrpc":"2.0","id":19,"error":{"code":-32603,"message":"~bad_output.*outputSchema.*/n"}}
> {"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"no_output","arguments":{}}}
< {"jsonrpc":"2.0","id":20,"error":{"code":-32603,"message":"~no_output.*outputSchema"}}
> {"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"good_output","arguments":{}}}
< {"jsonrpc":"2.0","id":21,"result":{"content":[{"type":"text","text":"{\"n\":42}"}],"structuredContent":{"n":42},"isError":"<absent>"}}
