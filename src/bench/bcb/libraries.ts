/**
 * The third-party libraries BigCodeBench's tests and solutions import: what the
 * evaluator's Python is probed for (missing ones block tasks, versions go into the
 * run manifest).
 */
import type { PythonModulesQuery } from '../../env/python-tests/contract.js';

/** Modules without which most BigCodeBench tasks cannot pass. */
export const CORE_BCB_MODULES = ['numpy', 'pandas', 'matplotlib', 'scipy', 'sklearn'];

/** Every third-party module that BigCodeBench tests or solutions import (top-level names). */
export const BCB_MODULES = [
  ...CORE_BCB_MODULES,
  'seaborn', 'statsmodels', 'sympy', 'networkx', 'skimage', 'cv2', 'PIL', 'soundfile', 'gensim', 'wordcloud',
  'tkinter', 'nltk', 'regex', 'Levenshtein', 'natsort', 'chardet', 'pytz', 'dateutil', 'holidays', 'faker',
  'yaml', 'xmltodict', 'lxml', 'bs4', 'pyquery', 'texttable', 'prettytable', 'openpyxl', 'xlrd', 'xlwt', 'docx',
  'requests', 'requests_mock', 'mechanize', 'django', 'flask', 'flask_mail', 'flask_login', 'flask_restful',
  'flask_wtf', 'wtforms', 'werkzeug', 'rsa', 'cryptography', 'Crypto', 'psutil', 'pyfakefs', 'folium', 'geopy',
  'geopandas', 'shapely', 'tensorflow', 'keras', 'textblob', 'wikipedia', 'librosa', 'sendgrid',
  'python_http_client', 'blake3', 'wordninja', 'pytesseract',
];

/** Same library, other import name; the BCB harness maps these (see PACKAGE_ALIASES in bcb_harness.py). */
export const PACKAGE_ALIASES: Record<string, string> = { Crypto: 'Cryptodome' };

/** What the evaluator's Python is asked: every BigCodeBench module, the core ones required. */
export const BCB_LIBRARIES: PythonModulesQuery = { modules: BCB_MODULES, aliases: PACKAGE_ALIASES, required: CORE_BCB_MODULES };
