/*
 * targets.h: the methods that call into a plugin (tools/call, resources/read, prompts/get,
 * completion/complete): the row named is found in the set served, the arguments checked,
 * and the call handed to the calls layer (calls/call.h), which answers it.
 */
#ifndef MCPH_TARGETS_H
#define MCPH_TARGETS_H

#include "protocol/request.h"

/* The method handlers. A call handed on takes req->msg (then NULL). The dispatching thread,
 * under the state lock. */
void targets_tools_call(struct request *req);
void targets_resources_read(struct request *req);
void targets_prompts_get(struct request *req);
void targets_complete(struct request *req);

#endif
