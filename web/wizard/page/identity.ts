// Step 2: the identity document — the card's two sides or the passport's page, each uploaded as soon as it is
// picked, with a preview, and waited for when the signer moves on before it has arrived.
import { answer } from '../../page-kit/api';
import { byId } from '../../page-kit/dom';
import {
  base64Of,
  busy,
  checked,
  client,
  errorKey,
  loaded,
  onRef,
  say,
  session,
  setError,
  t,
  type View,
} from './session';

const MAX_BYTES = 4 * 1024 * 1024;
const IMAGE_TYPES = ['image/png', 'image/jpeg'];
const VIEWS: View[] = ['front', 'back', 'page'];
const VIEW_LABEL: Record<View, string> = { front: 'front', back: 'back', page: 'passportPage' };

// Uploads of one view go one after the other, so the server keeps the file the preview shows.
const uploads: Record<View, Promise<void>> = {
  front: Promise.resolve(),
  back: Promise.resolve(),
  page: Promise.resolve(),
};
let pending = 0; // uploads picked and not answered yet

const isPassport = () => checked('doc-type') === 'passport';
export const identityComplete = (): boolean => {
  const id = loaded().identity;
  return isPassport() ? id.page : id.front && id.back;
};

export function showDocType(): void {
  const passport = isPassport();
  byId('card-uploads').hidden = passport;
  byId('passport-uploads').hidden = !passport;
}

/** The identity step's controls; `next` moves on once the document is complete. */
export function setUpIdentity(next: (step: number) => void): void {
  for (const r of document.querySelectorAll<HTMLInputElement>('input[name="doc-type"]')) {
    r.addEventListener('change', () => {
      showDocType();
      if (session.state && identityComplete()) setError('identity-error');
    });
  }
  for (const view of VIEWS) {
    const input = byId<HTMLInputElement>(`file-${view}`);
    input.addEventListener('change', () => upload(view, input));
  }
  byId('identity-next').addEventListener('click', (e) => {
    setError('identity-error');
    // Pressed while an image is still on its way: wait for it (buttons held, a visible note), then decide.
    void busy(e.currentTarget as HTMLElement, async () => {
      if (pending) say('identity-wait', 'waitUploads');
      try {
        while (pending) await Promise.all(Object.values(uploads));
      } finally {
        say('identity-wait');
      }
      const complete = identityComplete();
      setError('identity-error', complete ? undefined : 'identityIncomplete');
      if (complete) next(loaded().signed ? 4 : 3);
    });
  });
}

function upload(view: View, input: HTMLInputElement): void {
  const file = input.files?.[0];
  const img = byId<HTMLImageElement>(`preview-${view}`);
  setError(`${view}-error`);
  say(`${view}-status`);
  if (!file) return;
  const refuse = !IMAGE_TYPES.includes(file.type) ? 'wrongType' : file.size > MAX_BYTES ? 'tooLarge' : undefined;
  if (refuse) {
    img.hidden = true;
    return setError(`${view}-error`, refuse);
  }
  img.src = URL.createObjectURL(file);
  img.dataset.view = VIEW_LABEL[view];
  img.alt = t('previewAlt', { view: t(VIEW_LABEL[view]) });
  img.hidden = false;
  say(`${view}-status`, 'uploading');
  pending++;
  uploads[view] = uploads[view].then(async () => {
    try {
      const data = await base64Of(file);
      await answer(client.POST('/reg/{ref}/api/identity', { params: onRef, body: { view, data } }));
      if (input.files?.[0] !== file) return; // a newer pick is on its way
      say(`${view}-status`, 'received');
      loaded().identity[view] = true;
      // "Add the front and back…" goes as soon as what it asked for is here.
      if (identityComplete()) setError('identity-error');
    } catch (err) {
      if (input.files?.[0] !== file) return;
      say(`${view}-status`);
      img.hidden = true;
      setError(`${view}-error`, errorKey(err));
    } finally {
      pending--;
    }
  });
}
