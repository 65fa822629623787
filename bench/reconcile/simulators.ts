// The benchmark's simulators in a process of their own, so that their memory is measured apart: started, then
// their environment sent to the parent (IPC); they stop when the parent disconnects.
import { startSimulators } from '../../simulators';

const sims = await startSimulators({ host: '127.0.0.1' });
process.send!(sims.env);
process.once('disconnect', () => void sims.close().then(() => process.exit(0)));
