/* version.h: mcph's own version, sent as serverInfo.version and host->version. */
#ifndef MCPH_VERSION_H
#define MCPH_VERSION_H

#define MCPH_VERSION "0.1.0"

#endif
