#!/bin/sh
#
# SPDX-License-Identifier: CC0-1.0
#
# Copyright (C) 2019 Western Digital Corporation or its affiliates.

exec autoreconf -f -i
