#!/usr/bin/env node
import { createServiceApp } from '../lib/service-app';

createServiceApp();
