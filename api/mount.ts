// Serves a service's routes behind their access check (api/auth.ts): a key's scope or an operator's role; every
// authenticated route checks one.
import type { Router } from 'express';
import { accessOf, mountRoutes, type Route } from '../web/http/route';
import { requireAccess } from './auth';

export const serveRoutes = <D>(base: string, routes: Route<D>[], deps: D): Router =>
  mountRoutes(base, routes, deps, (r) => {
    const access = accessOf(r);
    return access ? [requireAccess(access)] : [];
  });
